import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

/**
 * `npm run demo:web`: the restaurant app in real Chromium, driven by a scripted agent (or,
 * with `--model PROVIDER:MODEL`, by an LLM), guarded by intentguard/web in the page.
 */

const usage = `Usage: npm run demo:web -- [--out DIR] [--model PROVIDER:MODEL] [--max-steps N]

  --out DIR              where screenshots go (default: demo-web-output/)
  --model PROVIDER:MODEL an LLM agent drives the app instead of the script
                         (openai:gpt-4o, anthropic:…, ollama:…; keys from the environment)
  --max-steps N          the LLM agent's step budget (default 20)
`;

async function main(): Promise<number> {
  let values: { out?: string; model?: string; 'max-steps'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        out: { type: 'string' },
        model: { type: 'string' },
        'max-steps': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(usage);
    return 0;
  }
  // Loaded once the flags are read: --help and a wrong flag answer at once.
  const { describeStep, runScriptedAgent } = await import('./agent.js');
  const { startDemoServer } = await import('./server.js');
  const out = resolve(values.out ?? 'demo-web-output');
  const server = await startDemoServer();
  process.stdout.write(`intentguard web demo: the app at ${server.url}, screenshots in ${out}\n`);
  process.stdout.write(
    'Task: "Book a table for 2 at restaurant R before 7 PM today, and pay the deposit it asks for."\n\n',
  );
  try {
    const onStep = (step: Parameters<typeof describeStep>[0]) =>
      process.stdout.write(`${describeStep(step)}\n`);
    const run = values.model
      ? await (await import('./model-agent.js')).runModelAgent({
          url: server.url,
          out,
          onStep,
          model: values.model,
          env: process.env,
          maxSteps: Number(values['max-steps'] ?? 20),
        })
      : await runScriptedAgent({ url: server.url, out, onStep });
    process.stdout.write(
      run.finished
        ? `\nDone: the guard agreed the task is complete.\n${run.confirmation.trim()}\n`
        : '\nThe agent stopped before the task was complete.\n',
    );
    return run.finished ? 0 : 1;
  } catch (error) {
    process.stderr.write(`demo:web: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await server.close();
  }
}

process.exitCode = await main();
