/**
 * The approvals page (`GET /`): server-rendered HTML with a few lines of script, no build
 * step. The person enters a bearer token (kept in this tab's sessionStorage, or passed as
 * `#token=…` in the address, which never reaches the server); the script lists the
 * token's pending approvals — the action, the rule and its reason — with approve and deny
 * buttons, and each session's decisions. Everything from the API is inserted as text,
 * never as HTML.
 */
export function approvalsPage(nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>intentguard — approvals</title>
<style nonce="${nonce}">
  body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; color: #222; }
  h1 { font-size: 1.3rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
  .approval, .session { border: 1px solid #ccc; border-radius: 6px; padding: .75rem 1rem; margin: .5rem 0; }
  .action { font-family: ui-monospace, monospace; font-weight: 600; }
  .reason { color: #555; }
  button { margin-right: .5rem; padding: .3rem .9rem; }
  table { border-collapse: collapse; width: 100%; } td { padding: .15rem .5rem; border-top: 1px solid #eee; vertical-align: top; }
  .run { color: #060; } .ask { color: #a60; } .refuse { color: #a00; }
  #error { color: #a00; }
</style>
</head>
<body>
<h1>intentguard — pending approvals</h1>
<form id="login"><label>Bearer token <input id="token" type="password" autocomplete="off" size="40"></label> <button type="submit">Connect</button></form>
<p id="error" role="alert"></p>
<div id="approvals" aria-live="polite"><p>Enter a token to see its pending approvals.</p></div>
<h2>Sessions</h2>
<div id="sessions"></div>
<script nonce="${nonce}">
(() => {
  const $ = (id) => document.getElementById(id);
  const fromHash = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fromHash) { sessionStorage.setItem('intentguard-token', fromHash); history.replaceState(null, '', location.pathname); }
  let token = sessionStorage.getItem('intentguard-token') || '';
  const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };
  async function api(method, path, body) {
    const r = await fetch(path, { method, headers: { Authorization: 'Bearer ' + token, 'Content-Type': 'application/json' }, body: body && JSON.stringify(body) });
    const json = await r.json();
    if (!r.ok) throw new Error(json.message || r.status);
    return json;
  }
  // The full arguments, those the confirming guard or rule constrains first (C1).
  function callText(d) {
    if (!d.call) return d.id;
    const args = d.call.args ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return d.call.name + ' ' + JSON.stringify(args);
    const first = [];
    for (const r of (d.decision && d.decision.verdict.reasons) || []) for (const n of r.arguments || []) if (Object.hasOwn(args, n) && !first.includes(n)) first.push(n);
    const keys = first.concat(Object.keys(args).filter((k) => !first.includes(k)));
    return d.call.name + ' {' + keys.map((k) => JSON.stringify(k) + ':' + JSON.stringify(args[k])).join(',') + '}';
  }
  async function answer(session, id, approved) {
    try { await api('POST', '/v1/sessions/' + encodeURIComponent(session) + '/approve', { id, approved }); await refresh(); }
    catch (e) { $('error').textContent = String(e.message || e); }
  }
  async function refresh() {
    if (!token) return;
    try {
      const [{ approvals }, { sessions }] = await Promise.all([api('GET', '/v1/approvals'), api('GET', '/v1/sessions')]);
      $('error').textContent = '';
      const list = $('approvals'); list.replaceChildren();
      if (approvals.length === 0) list.append(el('p', 'Nothing waits for an answer.'));
      for (const a of approvals) {
        const box = el('div', undefined, 'approval'); box.dataset.id = a.id; box.dataset.session = a.session;
        box.append(el('div', callText(a), 'action'));
        for (const r of a.decision.verdict.reasons) box.append(el('div', (r.rule ? 'Rule: ' + r.rule + ' — ' : '') + r.message, 'reason'));
        box.append(el('p', a.prompt));
        const yes = el('button', 'Approve'); yes.onclick = () => answer(a.session, a.id, true);
        const no = el('button', 'Deny'); no.onclick = () => answer(a.session, a.id, false);
        box.append(yes, no, el('small', 'session ' + a.session + ', call ' + a.id));
        list.append(box);
      }
      const all = $('sessions'); all.replaceChildren();
      for (const s of sessions) {
        const box = el('div', undefined, 'session'); box.dataset.session = s.id;
        box.append(el('div', 'Session ' + s.id + (s.finished ? ' (finished)' : '')));
        const table = el('table');
        for (const d of s.decisions) {
          const row = el('tr'); row.dataset.id = d.id;
          row.append(el('td', d.id), el('td', d.action, d.action), el('td', d.message));
          table.append(row);
        }
        box.append(table); all.append(box);
      }
    } catch (e) { $('error').textContent = String(e.message || e); }
  }
  $('login').onsubmit = (event) => { event.preventDefault(); token = $('token').value.trim(); sessionStorage.setItem('intentguard-token', token); refresh(); };
  refresh(); setInterval(refresh, 1000);
})();
</script>
</body>
</html>
`;
}
