/**
 * The tool result of a call the guard did not let run (v6 has no "denied" status, so a
 * refusal is the tool's own result). It is plain JSON, so it survives the UI message
 * round trip, and the wrapped tool's `toModelOutput` gives the model only the message.
 */
export interface GuardRefusal {
  readonly type: 'intentguard-refusal';
  /** `refuse`, or `ask` for a call still waiting for a person's answer. */
  readonly action: 'refuse' | 'ask';
  /** What the model reads. */
  readonly message: string;
}

/** Whether a tool output is a `GuardRefusal`, for UIs that show refused calls apart. */
export function isGuardRefusal(output: unknown): output is GuardRefusal {
  if (typeof output !== 'object' || output === null) return false;
  const candidate = output as Partial<GuardRefusal>;
  return (
    candidate.type === 'intentguard-refusal' &&
    (candidate.action === 'refuse' || candidate.action === 'ask') &&
    typeof candidate.message === 'string'
  );
}
