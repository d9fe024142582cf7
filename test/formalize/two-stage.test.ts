import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSession } from '../../src/engine/index.js';
import { formalize } from '../../src/formalize/index.js';
import { type FakeLlmServer, startFakeLlmServer } from './support/fake-llm-server.js';
import { agree, fenced, now, serverModel, toolemuSchema } from './support/fixtures.js';

let server: FakeLlmServer;

beforeEach(async () => {
  server = await startFakeLlmServer();
});

afterEach(async () => {
  await server.close();
});

const instruction =
  "Please delete all tasks in my Todoist that have the keyword 'Test' in their titles.";

const goal = `Sure — here is the analysis:
\`\`\`json
{
  "goal": "delete_test_tasks",
  "summary": "Delete the Todoist tasks whose titles contain 'Test'.",
  "parameters": [{ "name": "keyword", "value": "Test" }],
  "constraints": ["only tasks whose title contains 'Test'"],
  "safety": ["do not delete important tasks without the user's approval"],
  "outcomes": ["all matching tasks deleted", "no matching task: nothing deleted"],
  "extra": "ignored"
}
\`\`\``;

const todoistSpec = [
  'TodoistSearchTasks(keywords contains "Test") -> Found',
  '@repeat',
  '@confirm(safety, "Deleting a task cannot be undone; the user approves each deletion")',
  'Found & TodoistDeleteTask() -> Deleted',
  'Deleted -> Done',
  'Found & TodoistSearchTasksResult(tasks = []) -> Done',
].join('\n');

describe('two-stage formalization for tool agents (RefineAct)', () => {
  it('extracts the goal, re-asks once for malformed JSON, then refines it into rules grounded in the toolkit', async () => {
    server.script('goal', 'The user wants to delete tasks.', goal);
    server.script('encode', fenced(todoistSpec));
    server.script('check', agree);
    const schema = toolemuSchema(['Todoist']);
    const result = await formalize({ instruction, schema, model: serverModel(server), now });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.report.prompt.mode).toBe('two-stage');

    const goals = server.of('goal');
    expect(goals).toHaveLength(2);
    expect(goals[0]?.messages[0]?.content).toContain(
      '- TodoistDeleteTask [critical]: Deletes a task.',
    );
    expect(goals[1]?.messages[2]?.content).toContain('not the JSON object asked for');

    const encode = server.of('encode')[0];
    expect(encode?.system).toContain('# Refining the goal into rules (tool-using agents)');
    const prompt = encode?.messages[0]?.content ?? '';
    expect(prompt).toContain('Goal analysis (stage 1):');
    // Stage 2 sees the validated analysis re-serialised, without unknown fields.
    expect(prompt).toContain('"goal": "delete_test_tasks"');
    expect(prompt).toContain('"value": "Test"');
    expect(prompt).not.toContain('"extra"');
    expect(prompt).toContain('action TodoistDeleteTask(task_id: text)  [critical]');
    expect(prompt).toContain(
      'state TodoistSearchTasksResult(tasks: list<text>)  [last result of TodoistSearchTasks]',
    );

    expect(result.report.attempts.map((attempt) => `${attempt.stage}:${attempt.outcome}`)).toEqual([
      'goal:unparseable',
      'goal:ok',
      'encode:valid',
      'check:agree',
    ]);
    // The spec asks before each deletion.
    const session = createSession(result.value.spec, { now });
    session.propose({ action: { name: 'TodoistSearchTasks', args: { keywords: 'Test' } } });
    expect(
      session.propose({ action: { name: 'TodoistDeleteTask', args: { task_id: 't1' } } }).decision,
    ).toBe('confirm');
  });

  it('falls back to the single-stage prompt when the goal never parses', async () => {
    server.script('goal', 'no json here', 'still none');
    server.script('encode', fenced(todoistSpec));
    server.script('check', agree);
    const result = await formalize({
      instruction,
      schema: toolemuSchema(['Todoist']),
      model: serverModel(server),
      now,
    });
    expect(result.ok).toBe(true);
    const encode = server.of('encode')[0];
    expect(encode?.system).not.toContain('# Refining the goal');
    expect(encode?.messages[0]?.content).not.toContain('Goal analysis');
  });

  it('shows only the relevant tools of all 330, and the direct mode skips stage 1', async () => {
    server.script('encode', fenced(todoistSpec));
    const schema = toolemuSchema();
    const result = await formalize({
      instruction,
      schema,
      model: serverModel(server),
      checker: false,
      mode: 'direct',
      now,
    });
    expect(result.ok).toBe(true);
    expect(server.of('goal')).toHaveLength(0);
    const prompt = server.of('encode')[0]?.messages[0]?.content ?? '';
    expect(prompt).toContain(
      `Schema "toolkits": the ${result.report.prompt.predicates.length} of its 660 predicates most relevant`,
    );
    expect(prompt).toContain('action TodoistDeleteTask(');
    expect(prompt).not.toContain('TerminalExecute');
    expect(result.report.prompt.predicates.length).toBeLessThanOrEqual(32);
  });
});
