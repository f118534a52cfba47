/** A type guard for the confirmation request a destructive call answers without `confirm: true`. */

import type { ConfirmationRequest } from './types.js';

/**
 * True when `result` is a confirmation request (HTTP 200, nothing deleted or forgotten): relay its
 * `how` to the person. Narrows a DeleteDocumentResult or ForgetMemoryResult either way.
 */
export function isConfirmationRequest(result: unknown): result is ConfirmationRequest {
  return (
    typeof result === 'object' && result !== null && (result as { status?: unknown }).status === 'confirmation_required'
  );
}
