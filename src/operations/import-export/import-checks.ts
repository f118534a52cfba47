/**
 * How an import checks an item by the rules of the operation that adds such a thing over the API,
 * and names the item's place when one refuses it.
 */
import { ServiceError } from '../../errors';
import { refusal, type SourcePosition } from '../../importers/problem';

/** The id a dry run gives a container it would make: none yet. */
export const TO_BE_MADE = '(to be made)';

/**
 * An operation's refusal of an item, naming the item's place, with the code and message the API
 * answers; anything else as it is.
 */
export function refusedAsTheApi(at: SourcePosition, err: unknown): unknown {
  return err instanceof ServiceError && err.code !== 'internal'
    ? refusal(at, `refused as the API refuses it: ${err.code}: ${err.message}`)
    : err;
}

/** Runs an operation's check on an item (see `refusedAsTheApi`). */
export function asTheApi<T>(at: SourcePosition, check: () => T): T {
  try {
    return check();
  } catch (err) {
    throw refusedAsTheApi(at, err);
  }
}
