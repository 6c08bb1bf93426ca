-- Passkeys (docs/decisions.md §14): WebAuthn credentials and the challenges of ceremonies under way.

-- A registered credential. The public key is the COSE key as the authenticator gave it; the
-- counter guards against cloned authenticators (a signature count that goes backwards).
CREATE TABLE passkeys (
  id             INTEGER PRIMARY KEY,
  user_id        INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  credential_id  TEXT NOT NULL UNIQUE,   -- base64url, as WebAuthn's JSON forms spell it
  public_key     BLOB NOT NULL,
  counter        INTEGER NOT NULL DEFAULT 0,
  transports     TEXT NOT NULL DEFAULT '[]',
  name           TEXT NOT NULL,
  created_at     TEXT NOT NULL,
  last_used_at   TEXT
);
CREATE INDEX passkeys_by_user ON passkeys (user_id, id);

-- A challenge is stored when options are handed out and deleted by the first answer that names
-- it, success or not (single use); it is refused after expires_at (5 minutes). user_id is the
-- account registering, or the account a sign-in was asked for (NULL: any passkey may answer).
CREATE TABLE webauthn_challenges (
  challenge   TEXT PRIMARY KEY,
  purpose     TEXT NOT NULL CHECK (purpose IN ('register', 'login')),
  user_id     INTEGER REFERENCES users(id) ON DELETE CASCADE,
  expires_at  INTEGER NOT NULL           -- milliseconds since the epoch
);
CREATE INDEX webauthn_challenges_by_expiry ON webauthn_challenges (expires_at);
