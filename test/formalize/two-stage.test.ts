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
      'state TodoistSearchTasksResult(tasks: list<text>)  [results of TodoistSearchTasks, one per call; its arguments are variables too]',
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

  it('keeps refining, and reports it, when stage 1 stays unreadable after a reminder', async () => {
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
    expect(server.of('goal')).toHaveLength(2);
    expect(server.of('goal')[1]?.messages[2]?.content).toContain(
      'That reply was not the JSON object',
    );
    const encode = server.of('encode')[0];
    // The refinement guidance stays: the mode reported is the mode that ran.
    expect(encode?.system).toContain('# Refining the goal');
    expect(encode?.messages[0]?.content).toContain('Goal analysis (stage 1): not available');
    expect(result.report.prompt.mode).toBe('two-stage');
    expect(result.report.samples[0]?.goalProblem).toBe('it contains no JSON object');
    expect(result.report.attempts.map((attempt) => `${attempt.stage}:${attempt.outcome}`)).toEqual([
      'goal:unparseable',
      'goal:unparseable',
      'encode:valid',
      'check:agree',
    ]);
  });

  it('reads a goal analysis with list values, an object map of parameters and null lists', async () => {
    server.script(
      'goal',
      '```json\n{"goal": "email_report", "parameters": {"recipients": ["alice@example.com", "bob@example.com"], "attachment": "Q1 report"}, "constraints": [{"only": "Q1"}], "safety": null, "outcomes": ["sent"]}\n```',
    );
    server.script('encode', fenced(todoistSpec));
    server.script('check', agree);
    const result = await formalize({
      instruction,
      schema: toolemuSchema(['Todoist']),
      model: serverModel(server),
      now,
    });
    expect(result.ok).toBe(true);
    expect(result.report.samples[0]?.goalProblem).toBeUndefined();
    const prompt = server.of('encode')[0]?.messages[0]?.content ?? '';
    expect(prompt).toContain('"value": "[\\"alice@example.com\\",\\"bob@example.com\\"]"');
    expect(prompt).toContain('"name": "attachment"');
    expect(prompt).toContain('"safety": []');
  });

  it('shows stage 1 only the tools of the toolkit the instruction names', async () => {
    server.script('goal', '{"goal": "delete_test_tasks", "outcomes": ["deleted"]}');
    server.script('encode', fenced(todoistSpec));
    const result = await formalize({
      instruction,
      schema: toolemuSchema(),
      model: serverModel(server),
      checker: false,
      now,
    });
    expect(result.ok).toBe(true);
    // Stage 1 is asked for its JSON through the provider's structured output.
    expect(server.of('goal')[0]?.body['response_format']).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'goal_analysis' },
    });
    const tools = (server.of('goal')[0]?.messages[0]?.content ?? '')
      .split('\n')
      .filter((line) => line.startsWith('- '));
    expect(tools.length).toBe(6);
    expect(tools.every((line) => line.startsWith('- Todoist'))).toBe(true);
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
