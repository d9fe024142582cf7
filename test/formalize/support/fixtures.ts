import { readFileSync } from 'node:fs';
import { createChatModel } from '../../../src/formalize/index.js';
import type { RetryOptions } from '../../../src/formalize/model/retry.js';
import type { Schema } from '../../../src/language/index.js';
import { loadStateSchema, loadToolSchema } from '../../../src/schema/index.js';
import { sharedPath } from '../../support/shared.js';
import type { FakeLlmServer } from './fake-llm-server.js';

export const sharedRoot = `${sharedPath('')}/`;

export function stateSchema(path: string, id: string): Schema {
  const result = loadStateSchema(readFileSync(`${sharedRoot}${path}`, 'utf8'), { id });
  if (!result.ok) throw new Error(`cannot load ${path}`);
  return result.value;
}

export function toolemuSchema(toolkits?: readonly string[]): Schema {
  const all = JSON.parse(readFileSync(`${sharedRoot}data/toolemu/toolkits.json`, 'utf8')) as {
    toolkit: string;
  }[];
  const chosen = toolkits ? all.filter((toolkit) => toolkits.includes(toolkit.toolkit)) : all;
  const result = loadToolSchema(chosen, {
    id: toolkits ? toolkits.join('+').toLowerCase() : 'toolkits',
  });
  if (!result.ok) throw new Error('cannot load the ToolEmu toolkits');
  return result.value;
}

export const restaurantSchema = (): Schema =>
  stateSchema('examples/restaurant/states.json', 'restaurant');

export const restaurantInstruction =
  'Reserve restaurant R before 7 PM today. If it is not available then, do nothing.';

export const restaurantSpec = [
  'R1: RestaurantInfo(name = "R") & ReserveInfo(date = today, time < 19:00, available = true) -> Reserve',
  'R2: Reserve & ReserveResult(success = true) -> Done',
  'R3: RestaurantInfo(name = "R") & ReserveInfo(date = today, time < 19:00, available = false) -> Done',
].join('\n');

export const fenced = (spec: string, before = 'Here is the spec:', after = ''): string =>
  `${before}\n\n\`\`\`intent\n${spec}\n\`\`\`\n${after}`;

export const agree = '```json\n{ "verdict": "agree", "discrepancies": [] }\n```';

export const disagree = (issue: string, fix?: string): string =>
  JSON.stringify({ verdict: 'disagree', discrepancies: [fix ? { issue, fix } : { issue }] });

export const testEnv = { OPENAI_API_KEY: 'sk-test-key' };

/** A model against the fake server, with instant (but recorded) backoff. */
export function serverModel(
  server: FakeLlmServer,
  delays: number[] = [],
  retry: RetryOptions = {},
) {
  return createChatModel('openai:gpt-4o', {
    env: testEnv,
    baseUrl: server.url,
    retry: {
      initialDelayMs: 10,
      ...retry,
      sleep: async (milliseconds) => {
        delays.push(milliseconds);
      },
    },
  });
}

export const now = '2025-03-14T12:00';
