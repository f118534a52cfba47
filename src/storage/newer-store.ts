/** A store that a newer Engram has migrated (either engine): this release would misread what that one stores. */
export class NewerStoreError extends Error {}
