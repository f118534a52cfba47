/**
 * A write refused because another row holds the same unique value (a container's name, an
 * account's email). Each store implementation translates its engine's error into this, so that
 * operations can answer `conflict` without knowing the engine.
 */
export class UniqueViolation extends Error {
  override readonly name = 'UniqueViolation';
}
