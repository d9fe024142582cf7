import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  confusablesModulePath,
  generateConfusablesModule,
} from '../../../scripts/generate-confusables.js';

describe('the committed confusables data', () => {
  it('is what scripts/generate-confusables.ts makes of the installed unhomoglyph package', () => {
    // When this fails, run `npx tsx scripts/generate-confusables.ts` and commit the result.
    expect(readFileSync(confusablesModulePath, 'utf8')).toBe(generateConfusablesModule());
  });
});
