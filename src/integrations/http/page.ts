/**
 * The approvals page (`GET /`): server-rendered HTML with a few lines of script, no build
 * step. The person enters a bearer token (kept in this tab's sessionStorage, or passed as
 * `#token=…` in the address, which never reaches the server); the script lists the
 * token's pending approvals — the guard's question in plain words (person-prompt.ts), the
 * arguments in full (those the spec constrains first) and the rules that ask — with
 * approve and deny buttons, and each session's task and decisions: every call by its tool
 * and arguments, a refusal with its reasons, who gave each (the task's intent or the
 * operator's policy) and what to do instead. Everything from the API is inserted as text,
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
  .approval { border-color: #c80; background: #fffaf0; }
  .question { font-size: 1.05rem; font-weight: 600; margin: 0 0 .4rem; overflow-wrap: anywhere; }
  .task { color: #333; margin: .2rem 0; } .task b { font-weight: 600; }
  dl.args { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .75rem; margin: .4rem 0; }
  dl.args dt { font-family: ui-monospace, monospace; } dl.args dd { margin: 0; font-family: ui-monospace, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
  dt.constrained::after { content: " (checked by the spec)"; font-family: system-ui, sans-serif; color: #a60; font-size: .85em; }
  .rule, .meta { color: #555; font-size: .9em; }
  .action { font-family: ui-monospace, monospace; font-weight: 600; overflow-wrap: anywhere; }
  .feedback { margin: .3rem 0 .3rem 1rem; }
  .feedback h4 { margin: .4rem 0 .1rem; font-size: .9rem; }
  .feedback ul { margin: 0; padding-left: 1.2rem; } .feedback pre { white-space: pre-wrap; font: inherit; margin: 0; }
  .source { font-size: .8em; border-radius: 3px; padding: 0 .3rem; background: #eee; margin-right: .3rem; }
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
  let token = sessionStorage.getItem('intentguard-token') || '';
  // A token in the address, at load or pasted into an open tab, replaces the stored one.
  function tokenFromHash() {
    const fromHash = new URLSearchParams(location.hash.slice(1)).get('token');
    if (!fromHash) return false;
    token = fromHash; sessionStorage.setItem('intentguard-token', token);
    history.replaceState(null, '', location.pathname);
    return true;
  }
  tokenFromHash();
  window.addEventListener('hashchange', () => { if (tokenFromHash()) refresh(); });
  const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };
  async function api(method, path, body) {
    const r = await fetch(path, { method, headers: { Authorization: 'Bearer ' + token, 'Content-Type': 'application/json' }, body: body && JSON.stringify(body) });
    const json = await r.json();
    if (!r.ok) throw new Error(json.message || r.status);
    return json;
  }
  const show = (value) => value === undefined ? '(not given)' : JSON.stringify(value, null, 2);
  // The arguments the verdict's guards and rules constrain, in the order they name them (C1).
  function constrained(verdict) {
    const names = [];
    for (const r of (verdict && verdict.reasons) || []) for (const n of r.arguments || []) if (!names.includes(n)) names.push(n);
    return names;
  }
  // The call's tool and arguments on one line, those the spec constrains first.
  function callText(call, verdict) {
    if (!call) return '';
    const args = call.args ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return call.name + ' ' + JSON.stringify(args);
    const first = constrained(verdict).filter((n) => Object.hasOwn(args, n));
    const keys = first.concat(Object.keys(args).filter((k) => !first.includes(k)));
    return call.name + ' {' + keys.map((k) => JSON.stringify(k) + ':' + JSON.stringify(args[k])).join(',') + '}';
  }
  // Every argument in full, one a line, those the spec constrains first and marked.
  function argumentList(call, verdict) {
    const list = el('dl', undefined, 'args');
    const args = call && call.args;
    if (typeof args !== 'object' || args === null || Array.isArray(args)) { list.append(el('dt', 'arguments'), el('dd', show(args))); return list; }
    const first = constrained(verdict);
    for (const k of first.concat(Object.keys(args).filter((k) => !first.includes(k)))) {
      list.append(el('dt', k, first.includes(k) ? 'constrained' : undefined), el('dd', show(Object.hasOwn(args, k) ? args[k] : undefined)));
    }
    return list;
  }
  const sourceWords = { intent: 'your task', policy: 'operator policy' };
  // A refusal laid out: each reason with who gave it, the feedback with its line breaks, what to do instead.
  function feedbackOf(decision) {
    const box = el('div', undefined, 'feedback');
    const verdict = decision.verdict || { reasons: [] };
    box.append(el('h4', 'Why'));
    const reasons = el('ul');
    for (const r of verdict.reasons) {
      const item = el('li');
      if (r.source) item.append(el('span', sourceWords[r.source] || r.source, 'source'));
      item.append(document.createTextNode(r.message));
      if (r.rule) item.append(el('span', ' (rule ' + r.rule + ')', 'rule'));
      reasons.append(item);
    }
    box.append(reasons);
    const instead = [];
    for (const r of verdict.reasons) for (const c of r.candidates || []) if (!instead.includes(c)) instead.push(c);
    if (verdict.roadmap || instead.length > 0) {
      box.append(el('h4', 'What to do instead'));
      if (verdict.roadmap) box.append(el('pre', verdict.roadmap));
      else { const list = el('ul'); for (const c of instead) list.append(el('li', c)); box.append(list); }
    }
    if (verdict.feedback) { box.append(el('h4', 'Feedback to the agent')); box.append(el('pre', verdict.feedback)); }
    return box;
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
        // The guard's question, the one text every surface asks (it holds the reason and the task).
        box.append(el('p', a.prompt, 'question'));
        box.append(argumentList(a.call, a.decision.verdict));
        const rules = a.decision.verdict.reasons.filter((r) => r.rule).map((r) => r.rule + (r.source ? ' (' + (sourceWords[r.source] || r.source) + ')' : ''));
        if (rules.length > 0) box.append(el('div', 'Asked by rule ' + rules.join(', '), 'rule'));
        const yes = el('button', 'Approve'); yes.onclick = () => answer(a.session, a.id, true);
        const no = el('button', 'Deny'); no.onclick = () => answer(a.session, a.id, false);
        box.append(yes, no, el('small', 'session ' + a.session + ', call ' + a.id, 'meta'));
        list.append(box);
      }
      const all = $('sessions'); all.replaceChildren();
      for (const s of sessions) {
        const box = el('div', undefined, 'session'); box.dataset.session = s.id;
        box.append(el('div', 'Session ' + s.id + (s.finished ? ' (finished)' : ''), 'meta'));
        if (s.task) { const task = el('p', undefined, 'task'); task.append(el('b', 'Task: '), document.createTextNode(s.task)); box.append(task); }
        const calls = new Map((s.calls || []).map((c) => [c.id, c]));
        const table = el('table');
        for (const d of s.decisions || []) {
          const row = el('tr'); row.dataset.id = d.id;
          const what = el('td'); what.append(el('div', callText(calls.get(d.id), d.verdict) || d.id, 'action'));
          if (d.action === 'refuse') what.append(feedbackOf(d));
          else if (d.action === 'ask') what.append(el('div', d.prompt, 'question'));
          row.append(el('td', d.id, 'meta'), el('td', d.action, d.action), what);
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
