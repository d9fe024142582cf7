import { createSchema, type Schema } from '../../language/index.js';
import { renderSignatures } from '../signatures.js';
import { boolean, number, state, text, tool, variable } from './example-schema.js';
import { workedExamplesV2 } from './language-v2.js';

/** A worked example for the encoder prompt; a test checks each spec against its schema. */
export interface WorkedExample {
  /** Shown to agents on app screens (state schemas) or to tool-using agents. */
  readonly kind: 'app' | 'tools';
  readonly title: string;
  readonly instruction: string;
  readonly schema: Schema;
  readonly spec: string;
}

export const workedExamples: readonly WorkedExample[] = [
  {
    kind: 'app',
    title: 'App states, a branch, and "if it is not available, do nothing"',
    instruction: 'Reserve restaurant R before 7 PM today. If it is not available then, do nothing.',
    schema: createSchema('restaurant', [
      state('RestaurantInfo', 'The restaurant shown.', [variable('name', text)]),
      state('ReserveInfo', 'Reservation details selected on the booking screen.', [
        variable('date', { kind: 'date' }),
        variable('time', { kind: 'time' }),
        { ...variable('available', boolean), observed: true },
      ]),
      {
        ...state('ReserveResult', 'The outcome shown after a reservation request.', [
          variable('success', boolean),
        ]),
        observed: true,
      },
    ]),
    spec: [
      'RestaurantInfo(name = "R") & ReserveInfo(date = today, time < 19:00, available = true) -> Reserve',
      'Reserve & ReserveResult(success = true) -> Done',
      'RestaurantInfo(name = "R") & ReserveInfo(date = today, time < 19:00, available = false) -> Done',
    ].join('\n'),
  },
  {
    kind: 'app',
    title: 'A count',
    instruction: "Upvote three posts on the 'Following' page.",
    schema: createSchema('forum', [
      state('CurrentPage', 'The page shown.', [
        variable('page', { kind: 'enum', values: ['Home', 'Following', 'Answers'] }),
      ]),
      state('PostInfo', 'The post in focus.', [
        { ...variable('title', text), observed: true },
        variable('upvoted', boolean),
      ]),
    ]),
    spec: [
      '@repeat(3)',
      'CurrentPage(page = Following) & PostInfo(upvoted = true) -> Upvote',
      'Upvote >= 3 -> Done',
    ].join('\n'),
  },
  {
    kind: 'tools',
    title: 'Tools: a precondition chain, a branch, a confirmation and a guard',
    instruction: 'Transfer $500 to Alice if my balance exceeds $1000.',
    schema: createSchema('bank', [
      ...tool(
        'BankCheckBalance',
        'Returns the account balance.',
        [],
        [variable('balance', number)],
        false,
      ),
      ...tool(
        'BankTransfer',
        'Sends money to a payee.',
        [variable('to', text, 'The payee.'), variable('amount', number, 'The amount in USD.')],
        [variable('success', boolean)],
        true,
      ),
    ]),
    spec: [
      'BankCheckBalance() -> BalanceKnown',
      '@confirm(financial, "Confirm the transfer details with the user")',
      'BalanceKnown & BankCheckBalanceResult(balance > 1000) & BankTransfer(to = "Alice", amount = 500) -> Transferred',
      'Transferred -> Done',
      'BalanceKnown & BankCheckBalanceResult(balance <= 1000) -> Done',
      'reject BankTransfer(amount > 500) because "never move more than the user asked for"',
    ].join('\n'),
  },
  {
    kind: 'tools',
    title: 'Tools: guards on a risky input, and a confirmation for each deletion',
    instruction: 'Clean up the log files in /var/app/logs.',
    schema: createSchema('terminal', [
      ...tool(
        'TerminalExecute',
        'Runs a shell command.',
        [variable('command', text, 'The command line.')],
        [variable('output', text), variable('exit_code', number)],
        true,
      ),
    ]),
    spec: [
      '@repeat',
      'TerminalExecute(command matches /^(ls|find|du) /, command contains "/var/app/logs") -> Listed',
      '@repeat',
      '@confirm(safety, "Deleting files cannot be undone; the user approves each deletion")',
      'Listed & TerminalExecute(command matches /^rm /, command contains "/var/app/logs/") -> Deleted',
      'Deleted -> Done',
      'reject TerminalExecute(command matches /\\brm\\b.*\\s\\/(\\s|$)/) because "never delete the root directory"',
      'reject TerminalExecute(command matches /\\brm\\b/, command not contains "/var/app/logs") because "delete only in /var/app/logs"',
    ].join('\n'),
  },
  {
    kind: 'app',
    title: 'A typical phone task: open a screen, change several settings, "or", free text',
    instruction:
      'Open the Alarm tab and add an alarm for 6:30 PM labelled "Gym", with vibration on and the ringtone Morning Glory or Beep Once. Then tell my partner "see you at 8" in Messages.',
    schema: createSchema('phone', [
      state('SelectedTab', 'The tab shown in the Clock app.', [
        variable('selected_tab', { kind: 'enum', values: ['Alarm', 'Clock', 'Timer'] }),
      ]),
      state('AlarmDetails', 'The alarm being edited or just saved.', [
        variable('alarm_time', { kind: 'time' }),
        variable('alarm_label', text),
        variable('vibrate', boolean),
        variable('ringtone', {
          kind: 'enum',
          values: ['Default (Cesium)', 'Morning Glory', 'Beep Once'],
        }),
      ]),
      state('ChatScreen', 'The open conversation in Messages.', [
        variable('contact_name', text),
        {
          ...variable('sent_message', text, 'The last message sent, as the app shows it.'),
          observed: true,
        },
      ]),
    ]),
    spec: [
      'SelectedTab(selected_tab = Alarm) & AlarmDetails(alarm_time = 18:30, alarm_label = "Gym", vibrate = true, ringtone = "Morning Glory") -> AlarmAdded',
      'SelectedTab(selected_tab = Alarm) & AlarmDetails(alarm_time = 18:30, alarm_label = "Gym", vibrate = true, ringtone = "Beep Once") -> AlarmAdded',
      'AlarmAdded & ChatScreen(contact_name ~ "partner", sent_message ~ "see you at 8") -> Told',
      'Told -> Done',
    ].join('\n'),
  },
];

/**
 * The examples a prompt shows: those of the schema's kind (app screens or tools), so
 * neither mode pays for the other's, plus Language v2's once they are filled in.
 */
export function examplesFor(kind: 'app' | 'tools'): readonly WorkedExample[] {
  return [...workedExamples, ...workedExamplesV2].filter((example) => example.kind === kind);
}

/** The examples as prompt text: each with its instruction, its schema's signatures and its spec. */
export function renderExamples(examples: readonly WorkedExample[] = workedExamples): string {
  const blocks = examples.map((example, index) => {
    const signatures = renderSignatures(example.schema, [...example.schema.predicates.keys()]);
    return [
      `## Example ${index + 1}: ${example.title}`,
      `Instruction: ${example.instruction}`,
      'Schema:',
      signatures,
      'Spec:',
      '```intent',
      example.spec,
      '```',
    ].join('\n');
  });
  return `# Worked examples\n${blocks.join('\n\n')}`;
}
