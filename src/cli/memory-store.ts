import type { ExperienceMemory } from '../store/index.js';
import { errorMessage } from '../support/error-message.js';
import { CliError } from './io.js';

/** The store is loaded only when --memory is used: it needs the native SQLite module. */
export async function openMemory(path: string): Promise<ExperienceMemory> {
  try {
    const store = await import('../store/index.js');
    return store.ExperienceMemory.open(path);
  } catch (error) {
    throw new CliError(`--memory: cannot open '${path}': ${errorMessage(error)}`, 2);
  }
}
