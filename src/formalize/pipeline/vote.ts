import { meaningKey, type Spec } from '../../language/index.js';
import type { SampleOutcome, VotedSpec } from './types.js';

/**
 * Groups the valid samples by what their specs mean (`meaningKey`), not by spelling:
 * `Alarm`, `"Alarm"` and `alarm`, `09:00` and `09:00:00`, rules in another order or
 * with labels are one vote. A group shows its earliest sample's spec.
 */
export function vote(samples: readonly SampleOutcome[]): VotedSpec[] {
  const groups = new Map<string, { text: string; spec: Spec; samples: number[] }>();
  for (const sample of samples) {
    if (!sample.ok || sample.text === undefined || sample.spec === undefined) continue;
    const key = meaningKey(sample.spec);
    const group = groups.get(key);
    if (group) group.samples.push(sample.sample);
    else groups.set(key, { text: sample.text, spec: sample.spec, samples: [sample.sample] });
  }
  return [...groups.values()]
    .map((group) => ({
      text: group.text,
      spec: group.spec,
      votes: group.samples.length,
      samples: group.samples,
    }))
    .sort(
      (left, right) => right.votes - left.votes || (left.samples[0] ?? 0) - (right.samples[0] ?? 0),
    );
}
