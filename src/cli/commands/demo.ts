import type { Command } from 'commander';
import { createSession, type Verdict } from '../../engine/index.js';
import { checkSpec, print, renderDiagnostics, type Schema } from '../../language/index.js';
import { loadStateSchema, loadToolSchema } from '../../schema/index.js';
import { type DemoScenario, demoScenarios } from '../demo/scenarios.js';
import { CliError, type CliIo } from '../io.js';
import type { CommandRegistration } from '../program.js';

interface DemoOptions {
  readonly json?: boolean;
  readonly color?: boolean;
}

type Paint = (code: number, text: string) => string;

function painter(enabled: boolean): Paint {
  return enabled ? (code, text) => `\u001b[${code}m${text}\u001b[0m` : (_code, text) => text;
}

const decisionStyle: Record<Verdict['decision'], { code: number; mark: string }> = {
  allow: { code: 32, mark: '✓' },
  confirm: { code: 33, mark: '?' },
  revise: { code: 35, mark: '↺' },
  reject: { code: 31, mark: '✗' },
};

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => `${prefix}${line}`)
    .join('\n');
}

function loadScenario(scenario: DemoScenario): {
  schema: Schema;
  spec: ReturnType<typeof checkSpec>;
} {
  const loaded =
    scenario.schemaKind === 'states'
      ? loadStateSchema(scenario.schema, { id: 'demo' })
      : loadToolSchema(scenario.schema, { id: 'demo' });
  if (!loaded.ok)
    throw new CliError(`demo schema: ${renderDiagnostics(loaded.diagnostics, undefined)}`, 2);
  return { schema: loaded.value, spec: checkSpec(scenario.spec, loaded.value) };
}

function runScenario(scenario: DemoScenario, io: CliIo, paint: Paint, json: boolean): void {
  const { spec } = loadScenario(scenario);
  if (!spec.ok)
    throw new CliError(`demo spec: ${renderDiagnostics(spec.diagnostics, scenario.spec)}`, 2);
  const session = createSession(spec.value, { now: scenario.now });
  const out = (text: string) => {
    if (!json) io.stdout(`${text}\n`);
  };
  out(paint(1, `━━ ${scenario.title}`));
  out(`${paint(2, 'User:')} ${scenario.instruction}`);
  out(paint(2, 'Spec (checked before the agent starts):'));
  out(indent(print(spec.value.ast).trimEnd(), '  '));
  out('');
  let step = 0;
  for (const event of scenario.steps) {
    if (event.kind === 'observe') {
      const result = session.observe(event.observation);
      out(
        `   ${paint(36, '◆')} ${event.actor}: ${JSON.stringify(event.observation.updates)}${result.status.done ? paint(2, '  (the task is now done)') : ''}`,
      );
      if (json)
        io.stdout(
          `${JSON.stringify({ scenario: scenario.title, observe: event.observation, result })}\n`,
        );
      continue;
    }
    if (event.kind === 'resolve') {
      const result = session.resolve(event.approved);
      out(
        `   ${paint(36, '◆')} user ${event.approved ? 'approves' : 'declines'}: ${result.message}`,
      );
      if (json)
        io.stdout(
          `${JSON.stringify({ scenario: scenario.title, resolve: { approved: event.approved }, result })}\n`,
        );
      continue;
    }
    step++;
    const verdict = session.propose(event.proposal);
    const style = decisionStyle[verdict.decision];
    const code = verdict.reasons[0]?.code;
    const label = `${verdict.decision}${verdict.severity ? ` (${verdict.severity})` : ''}${code ? ` · ${code}` : ''}`;
    out(
      `${String(step).padStart(2)}. ${paint(1, event.actor)}  ${paint(2, JSON.stringify(event.proposal))}`,
    );
    out(`    ${paint(style.code, `${style.mark} ${label}`)}`);
    if (verdict.decision !== 'allow') out(indent(verdict.feedback, '      '));
    if (json)
      io.stdout(
        `${JSON.stringify({ scenario: scenario.title, propose: event.proposal, verdict })}\n`,
      );
  }
  const status = session.status();
  out(
    paint(
      2,
      `Result: ${status.finished ? 'finished' : 'not finished'}; achieved ${JSON.stringify(status.achieved)}.`,
    ),
  );
  out('');
}

const tones = { ok: 32, ask: 33, refuse: 35, dim: 2 } as const;

/** Narration of the tool-agent scene in the demo's terminal style, or JSON lines. */
function sceneOutput(io: CliIo, paint: Paint, json: boolean) {
  let started = false;
  return {
    line: (actor: string, text: string, tone?: keyof typeof tones) => {
      if (json) return;
      if (!started) {
        started = true;
        io.stdout(
          `${paint(1, '━━ A tool agent in the Vercel AI SDK loop (intentguard/ai-sdk)')}\n`,
        );
      }
      const [first = '', ...rest] = text.split('\n');
      const body = [first, ...rest.map((line) => `         ${line}`)].join('\n');
      io.stdout(`${paint(1, actor.padEnd(7))}  ${tone ? paint(tones[tone], body) : body}\n`);
    },
    event: (record: Record<string, unknown>) => {
      if (json) io.stdout(`${JSON.stringify(record)}\n`);
    },
  };
}

/** `intentguard demo`: guarded agent sessions, offline, with each decision and its feedback. */
export const registerDemo: CommandRegistration = (program: Command, io, state) => {
  program
    .command('demo')
    .description(
      'Run guarded agent sessions over the restaurant and bank-transfer examples, and a tool agent in the AI SDK loop (no network, no key).',
    )
    .option('--json', 'print each event and verdict as a JSON line')
    .option('--no-color', 'plain text even on a terminal')
    .action(async (options: DemoOptions) => {
      // The AI SDK scene needs `ai`, an optional dependency: loaded before anything prints.
      const { runToolAgentScene } = await import('../demo/tool-agent-scene.js');
      const json = options.json === true;
      const paint = painter(io.stdoutIsTerminal && options.color !== false && !json);
      for (const scenario of demoScenarios) runScenario(scenario, io, paint, json);
      const done = await runToolAgentScene(sceneOutput(io, paint, json));
      if (!json)
        io.stdout(
          `${paint(2, `Result: ${done ? 'finished, the task is done' : 'not finished'}.`)}\n\n`,
        );
      state.exitCode = done ? 0 : 1;
    });
};
