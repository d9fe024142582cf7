import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { caseFold as packageCaseFold } from 'unicode-case-folding';
import { describe, expect, it } from 'vitest';
import {
  caseFoldingModulePath,
  renderCaseFoldingModule,
} from '../../../scripts/generate-case-folding.js';
import { caseFold } from './case-folding.js';

describe('case folding from the compact data', () => {
  it('is what scripts/generate-case-folding.ts makes of the installed unicode-case-folding package', () => {
    // When this fails, run `npx tsx scripts/generate-case-folding.ts` and commit the result.
    expect(readFileSync(caseFoldingModulePath, 'utf8')).toBe(renderCaseFoldingModule());
  });

  it('folds every code point exactly as the package', () => {
    const differences: string[] = [];
    for (let codePoint = 0; codePoint <= 0x10ffff; codePoint++) {
      if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue;
      const character = String.fromCodePoint(codePoint);
      if (caseFold(character) !== packageCaseFold(character))
        differences.push(codePoint.toString(16));
    }
    expect(differences).toEqual([]);
  });

  it('folds a text as the package does, code point by code point (surrogates left alone)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 64 }), (text) => {
        expect(caseFold(text)).toBe([...text].map((character) => caseFold(character)).join(''));
        if (!/[\ud800-\udfff]/.test(text)) expect(caseFold(text)).toBe(packageCaseFold(text));
      }),
    );
  });

  it.each([
    ['STRAẞE', 'strasse'],
    ['İstanbul', 'i̇stanbul'],
    ['ΣΑΣ', 'σασ'],
    ['ﬁ', 'fi'],
    ['𐐀', '𐐨'],
    ['plain ascii 123', 'plain ascii 123'],
  ])('%s → %s (and texts as the package)', (text, folded) => {
    expect(caseFold(text)).toBe(folded);
    expect(caseFold(text)).toBe(packageCaseFold(text));
  });
});
