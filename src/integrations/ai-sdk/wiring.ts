import type { Guard } from '../../guard/index.js';
import { isRecord } from '../../support/is-record.js';
import { AiSdkSetupError } from './errors.js';

/*
 * How a guard is wired into an AI SDK run, so that a run the guard cannot see fails
 * loudly instead of running tools unchecked. `ai` 6 ignores options it does not know
 * (`toolApproval`, `onToolExecutionEnd`), and a tool added to the set after `guardTools`
 * runs as it is: the SDK gives no sign. So the adapter notes how each guard was wired
 * (`intentguardToolApproval`, `guardTools`), the finish tool notes its own calls, and the
 * stop condition checks after every step that each tool that ran was one the guard
 * checked.
 */

interface Wiring {
  /** `intentguardToolApproval` was made for this guard (it checks only where the SDK calls it: ai 7). */
  approvalHook: boolean;
  /** `guardTools` wrapped a tool set for this guard. */
  wrapped: boolean;
  /** Tools `guardTools` was told to leave unchecked (`options.unguarded`). */
  readonly unguardedNames: Set<string>;
  /** The call ids of the finish tool: the guard decides them at `finish`, not as actions. */
  readonly finishCallIds: Set<string>;
}

const wirings = new WeakMap<Guard, Wiring>();

function wiringOf(guard: Guard): Wiring {
  let wiring = wirings.get(guard);
  if (wiring === undefined) {
    wiring = {
      approvalHook: false,
      wrapped: false,
      unguardedNames: new Set(),
      finishCallIds: new Set(),
    };
    wirings.set(guard, wiring);
  }
  return wiring;
}

export function noteApprovalHook(guard: Guard): void {
  wiringOf(guard).approvalHook = true;
}

export function noteWrapped(guard: Guard, unguarded: Iterable<string>): void {
  const wiring = wiringOf(guard);
  wiring.wrapped = true;
  for (const name of unguarded) wiring.unguardedNames.add(name);
}

export function noteFinishCall(guard: Guard, id: unknown): void {
  if (typeof id === 'string') wiringOf(guard).finishCallIds.add(id);
}

/**
 * The SDK reading the finish tool is `ai` 6: when the guard's only check is the
 * `toolApproval` hook, which ai 6 never calls, the run stops here, before the model is
 * asked for anything.
 */
export function refuseIgnoredApprovalHook(guard: Guard): void {
  const wiring = wirings.get(guard);
  if (wiring?.approvalHook !== true || wiring.wrapped) return;
  throw new AiSdkSetupError(
    'tool-approval-ignored',
    'intentguard: this run uses ai 6, which ignores toolApproval and onToolExecutionEnd, so every tool would run unchecked. On ai 6 wrap the tools instead: tools: { ...guardTools(tools, guard), finish: finishTool(guard) } (works on ai 6 and 7); toolApproval needs ai 7, which needs Node 22.',
  );
}

/** A tool call that ran (its result or error is in a step), by id and tool name. */
interface RanCall {
  readonly id: string;
  readonly name: string;
  readonly output: unknown;
}

/** The tool calls that ran in the steps of a run, or `undefined` for a shape the adapter does not know. */
function ranCalls(steps: unknown): RanCall[] | undefined {
  if (!Array.isArray(steps)) return undefined;
  const calls: RanCall[] = [];
  for (const step of steps) {
    if (!isRecord(step) || !Array.isArray(step.content)) return undefined;
    for (const part of step.content) {
      if (!isRecord(part) || (part.type !== 'tool-result' && part.type !== 'tool-error')) continue;
      if (typeof part.toolCallId !== 'string') return undefined;
      calls.push({
        id: part.toolCallId,
        name: typeof part.toolName === 'string' ? part.toolName : '?',
        output: part.output,
      });
    }
  }
  return calls;
}

/**
 * Throws unless every tool that ran in `steps` is one the guard checked (or the finish
 * tool, or a tool `guardTools` was told to leave unchecked). `isRefusal` recognises the
 * results the adapter itself gives for calls that did not run.
 */
export function assertEveryCallChecked(
  guard: Guard,
  steps: unknown,
  isRefusal: (output: unknown) => boolean,
): void {
  const calls = ranCalls(steps);
  if (calls === undefined)
    throw new AiSdkSetupError(
      'unchecked-tool-call',
      'intentguard: the steps of this run are not in a shape the adapter knows (ai 6 or 7), so it cannot tell whether every tool call was checked; the run stops.',
    );
  const wiring = wirings.get(guard);
  for (const call of calls) {
    if (guard.decision(call.id) !== undefined) continue;
    if (wiring?.finishCallIds.has(call.id) === true) continue;
    if (wiring?.unguardedNames.has(call.name) === true) continue;
    if (isRefusal(call.output)) continue;
    throw new AiSdkSetupError(
      'unchecked-tool-call',
      `intentguard: the tool '${call.name.slice(0, 80)}' ran (call '${call.id.slice(0, 80)}') but the guard never checked it, so the run stops. ${
        wiring?.approvalHook === true && !wiring.wrapped
          ? 'The SDK ignored toolApproval (ai 6 does): on ai 6 wrap the tools with guardTools(tools, guard).'
          : 'Every tool in the set must go through guardTools(tools, guard) (tools added after wrapping run unchecked), or through toolApproval: intentguardToolApproval(guard) on ai 7.'
      }`,
      call.name,
    );
  }
}
