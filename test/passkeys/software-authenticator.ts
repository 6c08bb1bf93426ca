/**
 * A software authenticator for runs that have no browser (the OpenAPI contract run): an ES256
 * key pair, `none` attestation, the WebAuthn JSON forms a browser would send. The browser tests use
 * Chromium's virtual authenticator instead (./authenticator.ts); this one only feeds the server.
 */
import crypto from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const b64url = (b: Uint8Array) => Buffer.from(b).toString('base64url');
const sha256 = (b: Uint8Array | string) => crypto.createHash('sha256').update(b).digest();

/** The JSON of a PublicKeyCredential (what `toJSON()` gives) around a response of either ceremony. */
const credentialJson = (rawId: Buffer, response: Record<string, unknown>) => ({
  id: b64url(rawId),
  rawId: b64url(rawId),
  type: 'public-key',
  clientExtensionResults: {},
  response,
});

export class SoftwareAuthenticator {
  private readonly keys = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  private readonly credentialId = crypto.randomBytes(16);
  private counter = 0;

  constructor(
    private readonly origin: string,
    private readonly rpId = new URL(origin).hostname,
  ) {}

  private clientData(type: string, challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }

  /** The credential's JSON for `navigator.credentials.create` with these options. */
  create(options: { challenge: string }): Record<string, unknown> {
    const jwk = this.keys.publicKey.export({ format: 'jwk' });
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    // rpIdHash, flags (user present, user verified, attested credential data), counter, AAGUID, id, key
    const authData = Buffer.concat([
      sha256(this.rpId),
      Buffer.from([0x45]),
      Buffer.alloc(4),
      Buffer.alloc(16),
      idLength,
      this.credentialId,
      Buffer.from(cose),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]) as never,
    );
    return credentialJson(this.credentialId, {
      clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge)),
      attestationObject: b64url(attestationObject),
      transports: ['internal'],
    });
  }

  /** The assertion's JSON for `navigator.credentials.get` with these options. */
  get(options: { challenge: string }): Record<string, unknown> {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(++this.counter);
    const authData = Buffer.concat([sha256(this.rpId), Buffer.from([0x05]), count]);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge);
    const signature = crypto.sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.keys.privateKey);
    return credentialJson(this.credentialId, {
      clientDataJSON: b64url(clientDataJSON),
      authenticatorData: b64url(authData),
      signature: b64url(signature),
    });
  }
}
