import { readFileSync } from 'node:fs';
import { checkSpec, renderDiagnostics } from './src/language/index.js';
import { loadStateSchema } from './src/schema/load-states.js';
import { createSession } from './src/engine/index.js';
const dir = '/work/shared/examples/';
const schema = loadStateSchema(readFileSync(dir + 'restaurant/states.json', 'utf8'));
if (!schema.ok) { console.log(schema.diagnostics); process.exit(1); }
const src = readFileSync(dir + 'restaurant/spec.intent', 'utf8');
const spec = checkSpec(src, schema.value);
if (!spec.ok) { console.log(renderDiagnostics(spec.diagnostics, src)); process.exit(1); }
for (const t of ['correct', 'not-available', 'wrong-time']) {
  const s = createSession(spec.value, { now: '2025-03-14T12:00' });
  for (const line of readFileSync(dir + `restaurant/${t}.jsonl`, 'utf8').trim().split('\n')) {
    const ev = JSON.parse(line);
    if (ev.propose) { const v = s.propose(ev.propose); console.log(JSON.stringify(ev.expect), '=>', v.decision, v.severity ?? '', v.reasons[0]?.code ?? ''); if (v.decision !== 'allow') console.log('   ', v.feedback.replace(/\n/g, '\n    ')); }
    if (ev.observe) console.log('observe', JSON.stringify(s.observe(ev.observe).ok));
    if (ev.resolve) console.log('resolve', s.resolve(ev.resolve.approved).message);
  }
  console.log(s.roadmap());
  console.log('-----');
}
