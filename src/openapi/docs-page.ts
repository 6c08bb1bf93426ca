/**
 * GET /docs: a self-contained page (no CDN; deployments may have no outside network) that fetches
 * openapi.json and renders operations, parameters, bodies and schemas. Scripts and styles carry
 * a per-response nonce, so the page runs under a strict Content-Security-Policy.
 */
export function docsPage(nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>imgpost API</title>
<style nonce="${nonce}">
  body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1100px; padding: 1rem 1.5rem 4rem; color: #1d1f24; }
  h1 { margin-bottom: .2rem; } h2 { border-bottom: 1px solid #ddd; padding-bottom: .2rem; margin-top: 2rem; text-transform: capitalize; }
  details.op { border: 1px solid #dde; border-radius: 6px; margin: .4rem 0; background: #fafbfd; }
  details.op > summary { cursor: pointer; padding: .45rem .6rem; list-style: none; display: flex; gap: .7rem; align-items: baseline; }
  .m { font: bold 12px monospace; text-transform: uppercase; padding: 2px 6px; border-radius: 4px; color: #fff; min-width: 3.8rem; text-align: center; }
  .get { background: #2f7ed8; } .post { background: #2e9d5b; } .put { background: #c98a12; } .patch { background: #8a5cc9; } .delete { background: #c8423b; }
  .path { font-family: monospace; font-weight: 600; } .sum { color: #555; } .lock { color: #b26b00; font-size: 12px; }
  .body { padding: .3rem 1rem 1rem; border-top: 1px solid #dde; background: #fff; }
  table { border-collapse: collapse; margin: .3rem 0 .8rem; } td, th { border: 1px solid #e3e3e8; padding: 3px 8px; text-align: left; vertical-align: top; }
  pre { background: #f4f5f8; padding: .6rem; border-radius: 4px; overflow: auto; font-size: 12.5px; margin: .2rem 0 .6rem; }
  .status { font: bold 13px monospace; } .muted { color: #777; } input { padding: .35rem; width: 20rem; }
</style>
</head>
<body>
<h1>imgpost API</h1>
<p class="muted" id="about">Loading <a href="openapi.json">openapi.json</a>…</p>
<p><input id="filter" placeholder="filter by path or summary" aria-label="filter operations"></p>
<div id="ops"></div>
<h2>Schemas</h2>
<div id="schemas"></div>
<script nonce="${nonce}">
(async () => {
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  const res = await fetch('openapi.json');
  const doc = await res.json();
  const refName = (ref) => ref.split('/').pop();
  // A compact TypeScript-like rendering; named schemas stay names (they are listed below).
  const show = (s, depth = 0) => {
    if (!s) return 'any';
    if (s.$ref) return refName(s.$ref);
    const pad = '  '.repeat(depth + 1);
    const alt = s.anyOf || s.oneOf;
    if (alt) return [...new Set(alt.map((x) => show(x, depth)))].join(' | ');
    if (s.allOf) return s.allOf.map((x) => show(x, depth)).join(' & ');
    if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
    if (s.const !== undefined) return JSON.stringify(s.const);
    const types = [].concat(s.type || []);
    const nul = types.includes('null') ? ' | null' : '';
    const t = types.filter((x) => x !== 'null')[0];
    if (t === 'array') return 'Array<' + show(s.items, depth) + '>' + nul;
    if (t === 'object' || s.properties) {
      const req = new Set(s.required || []);
      const lines = Object.entries(s.properties || {}).map(([k, v]) =>
        pad + k + (req.has(k) ? '' : '?') + ': ' + show(v, depth + 1) + (v.description ? '  // ' + v.description : ''));
      if (s.additionalProperties && typeof s.additionalProperties === 'object') lines.push(pad + '[key]: ' + show(s.additionalProperties, depth + 1));
      return '{\\n' + lines.join('\\n') + '\\n' + '  '.repeat(depth) + '}' + nul;
    }
    const extra = [s.format, s.pattern && '/' + s.pattern + '/', s.minimum !== undefined && '>= ' + s.minimum, s.maximum !== undefined && '<= ' + s.maximum, s.maxLength !== undefined && 'max ' + s.maxLength + ' chars'].filter(Boolean);
    return (t || 'any') + nul + (extra.length ? ' (' + extra.join(', ') + ')' : '');
  };
  const content = (c) => Object.entries(c || {}).map(([type, m]) => '<div class="muted">' + esc(type) + '</div><pre>' + esc(show(m.schema)) + '</pre>').join('');
  const opHtml = (path, method, op) => {
    const params = (op.parameters || []).map((p) => '<tr><td>' + esc(p.name) + '</td><td>' + esc(p.in) + (p.required ? ', required' : '') + '</td><td>' + esc(show(p.schema)) + '</td><td>' + esc(p.description || p.schema?.description || '') + '</td></tr>').join('');
    const responses = Object.entries(op.responses || {}).map(([status, r]) => '<div><span class="status">' + esc(status) + '</span> ' + esc(r.description || '') + '</div>' + content(r.content)).join('');
    return '<details class="op" data-text="' + esc((path + ' ' + (op.summary || '')).toLowerCase()) + '"><summary><span class="m ' + method + '">' + method + '</span><span class="path">' + esc(path) + '</span><span class="sum">' + esc(op.summary || '') + '</span>' + (op.security && op.security.length && !op.security.some((r) => !Object.keys(r).length) ? '<span class="lock">needs a credential</span>' : '') + '</summary><div class="body">' +
      (params ? '<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>type</th><th></th></tr>' + params + '</table>' : '') +
      (op.requestBody ? '<h4>Request body</h4>' + content(op.requestBody.content) : '') + '<h4>Responses</h4>' + responses + '</div></details>';
  };
  document.getElementById('about').innerHTML = esc(doc.info.description || '') + ' OpenAPI ' + esc(doc.openapi) + ', version ' + esc(doc.info.version) + ' — <a href="openapi.json">openapi.json</a>';
  const byTag = {};
  for (const [path, item] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(item)) (byTag[(op.tags || ['other'])[0]] ||= []).push(opHtml(path, method, op));
  document.getElementById('ops').innerHTML = Object.entries(byTag).map(([tag, ops]) => '<h2>' + esc(tag) + '</h2>' + ops.join('')).join('');
  document.getElementById('schemas').innerHTML = Object.entries(doc.components?.schemas || {}).map(([name, s]) => '<details class="op"><summary><span class="path">' + esc(name) + '</span><span class="sum">' + esc(s.description || '') + '</span></summary><div class="body"><pre>' + esc(show(s)) + '</pre></div></details>').join('');
  document.getElementById('filter').addEventListener('input', (e) => {
    const q = e.target.value.toLowerCase();
    for (const el of document.querySelectorAll('#ops details')) el.style.display = el.dataset.text.includes(q) ? '' : 'none';
  });
})().catch((err) => { document.getElementById('about').textContent = 'Could not load openapi.json: ' + err; });
</script>
</body>
</html>
`;
}
