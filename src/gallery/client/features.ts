/**
 * What the server allows, as the page's <body> says (src/gallery/page.ts): sign-up, and passkeys (off when PUBLIC_URL
 * is an IP address).
 */
export const features = () => ({
  registration: document.body.dataset.registration === 'open',
  passkeys: document.body.dataset.passkeys === 'on' && typeof PublicKeyCredential !== 'undefined',
});
