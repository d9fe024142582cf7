import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { ChatMessage } from '../../src/formalize/model/model.js';
import { createChatModel } from '../../src/formalize/model/providers.js';
import type { PublishedVerdict } from '../../src/integrations/web/index.js';
import {
  actionVerdict,
  type DemoRun,
  launchChromium,
  pageUrl,
  type RunOptions,
  type Step,
  verdictOf,
} from './agent.js';

/**
 * The LLM-driven variant of the demo agent: the model sees the page's accessibility tree
 * and the guard's published feedback, and answers one action at a time as JSON. The
 * model is whatever `createChatModel` makes of `--model PROVIDER:MODEL` (keys and base
 * URLs from the environment), the same plumbing the formalizer uses.
 */

export interface ModelRunOptions extends RunOptions {
  /** `PROVIDER:MODEL`, e.g. `openai:gpt-4o`. */
  readonly model: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** At most this many model turns (default 20). */
  readonly maxSteps?: number;
  /** The simulated person's answer to a confirmation dialog (default: approve). */
  readonly approve?: boolean;
}

export const agentSystemPrompt = `You are a web agent operating a restaurant booking app in a browser for a user.
The user's task: "Book a table for 2 at restaurant R before 7 PM today, and pay the deposit it asks for."
Each turn you get the page's accessibility tree and the feedback of intentguard, a checker that verifies every action before the app performs it. When it blocks an action, read its feedback and do what it says.
Answer with exactly one JSON object and nothing else, one of:
{"action":"fill","label":"<field label>","value":"<text>"}
{"action":"select","label":"<field label>","value":"<option>"}
{"action":"click","role":"button","name":"<accessible name>"}
{"action":"finish"}   (when you believe the task is complete)`;

type AgentAction =
  | { action: 'fill' | 'select'; label: string; value: string }
  | { action: 'click'; role: string; name: string }
  | { action: 'finish' };

const roles = new Set(['button', 'link', 'checkbox', 'radio', 'option', 'tab', 'menuitem']);

/** The model's reply as an action, or why it is not one (told back to the model). */
export function readAgentAction(text: string): AgentAction | string {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start)
    return 'Your reply has no JSON object. Answer with one action as JSON.';
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, end + 1));
  } catch {
    return 'Your reply is not valid JSON. Answer with one action as JSON.';
  }
  const candidate = value as Record<string, unknown>;
  const text1 = (name: string) =>
    typeof candidate[name] === 'string' && (candidate[name] as string).length <= 200;
  if (candidate.action === 'finish') return { action: 'finish' };
  if (
    (candidate.action === 'fill' || candidate.action === 'select') &&
    text1('label') &&
    text1('value')
  )
    return {
      action: candidate.action,
      label: candidate.label as string,
      value: candidate.value as string,
    };
  if (
    candidate.action === 'click' &&
    text1('name') &&
    (candidate.role === undefined || (text1('role') && roles.has(candidate.role as string)))
  )
    return {
      action: 'click',
      role: (candidate.role as string | undefined) ?? 'button',
      name: candidate.name as string,
    };
  return 'That is not one of the actions. Answer with one action as JSON.';
}

function describeAction(action: AgentAction): string {
  switch (action.action) {
    case 'fill':
      return `fills "${action.label}" with "${action.value}"`;
    case 'select':
      return `selects "${action.value}" in "${action.label}"`;
    case 'click':
      return `clicks the ${action.role} "${action.name}"`;
    case 'finish':
      return 'says it is done';
  }
}

async function perform(page: Page, action: AgentAction): Promise<void> {
  switch (action.action) {
    case 'fill':
      await page.getByLabel(action.label, { exact: true }).fill(action.value, { timeout: 5000 });
      return;
    case 'select':
      await page
        .getByLabel(action.label, { exact: true })
        .selectOption(action.value, { timeout: 5000 });
      return;
    case 'click':
      await page
        .getByRole(action.role as 'button', { name: action.name, exact: true })
        .click({ timeout: 5000 });
      return;
    case 'finish':
      return;
  }
}

export async function runModelAgent(options: ModelRunOptions): Promise<DemoRun> {
  const model = createChatModel(options.model, { env: options.env, retry: false });
  mkdirSync(options.out, { recursive: true });
  const browser = options.browser ?? (await launchChromium());
  const context = await browser.newContext({ viewport: { width: 900, height: 760 } });
  const page = await context.newPage();
  const steps: Step[] = [];
  const record = async (actor: Step['actor'], does: string, verdict?: PublishedVerdict) => {
    const screenshot = join(options.out, `model-${String(steps.length + 1).padStart(2, '0')}.png`);
    await page.screenshot({ path: screenshot });
    const step: Step = {
      step: steps.length + 1,
      actor,
      does,
      ...(verdict ? { verdict } : {}),
      screenshot,
    };
    steps.push(step);
    options.onStep?.(step);
  };
  const messages: ChatMessage[] = [];
  let feedback = 'No action yet.';
  let finished = false;
  try {
    await page.goto(pageUrl(options), { timeout: 15_000 });
    for (let turn = 0; turn < (options.maxSteps ?? 20) && !finished; turn++) {
      const tree = await page.locator('body').ariaSnapshot({ timeout: 5000 });
      messages.push({ role: 'user', content: `Page:\n${tree}\n\nintentguard: ${feedback}` });
      const reply = await model.generate({
        system: agentSystemPrompt,
        // The last turns, starting with a user turn (some providers require it).
        messages: messages.slice(-11),
        temperature: 0,
        purpose: 'encode',
        sample: 0,
      });
      messages.push({ role: 'assistant', content: reply.text });
      const action = readAgentAction(reply.text);
      if (typeof action === 'string') {
        feedback = action;
        await record(
          'agent',
          `answers something that is not an action: ${reply.text.slice(0, 80)}`,
        );
        continue;
      }
      let verdict: PublishedVerdict | undefined;
      try {
        if (action.action === 'finish') {
          verdict = await page.evaluate(() =>
            (
              window as unknown as { intentguard: { finish(): Promise<PublishedVerdict> } }
            ).intentguard.finish(),
          );
        } else {
          verdict = await actionVerdict(page, () => perform(page, action));
        }
      } catch (error) {
        feedback = `That action failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
        await record('agent', `${describeAction(action)} (failed)`);
        continue;
      }
      await record('agent', describeAction(action), verdict);
      feedback = verdict ? `${verdict.status}. ${verdict.message}` : 'done (not a guarded action).';
      if (verdict?.kind === 'finish' && verdict.status === 'allowed') finished = true;
      if (verdict?.status === 'asking') {
        // The person at the screen answers the dialog (simulated here).
        const answer = options.approve ?? true;
        const button = page
          .getByRole('dialog')
          .getByRole('button', { name: answer ? 'Approve' : 'Deny' });
        const answered = await verdictOf(page, () => button.click({ timeout: 5000 }));
        await record(
          'person',
          answer ? 'approves in the dialog' : 'denies in the dialog',
          answered,
        );
        feedback = answered ? `${answered.status} by the user. ${answered.message}` : feedback;
      }
    }
    return { steps, finished, confirmation: (await page.locator('main').textContent()) ?? '' };
  } finally {
    await context.close();
    if (!options.browser) await browser.close();
  }
}
