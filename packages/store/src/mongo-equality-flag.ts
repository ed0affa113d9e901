/**
 * A field set to `true` exactly while a condition on other fields holds (`due` while `nextAttemptAt` is set), and
 * absent otherwise, with a sparse index on it: the condition is then found by an equality. FerretDB 1.24 pushes only
 * equalities down to its indexes, so a range, an `$exists` or a `$type` on the fields themselves reads every document
 * of the collection. On MongoDB a partial index on the condition (`partialFilterExpression: { nextAttemptAt: { $type:
 * 'string' } }`) serves the query directly, and the flag would not be needed.
 *
 * Every write that changes the condition spreads `holds(…)`'s `$set` and `$unset` parts into its update.
 */
export function equalityFlag<const F extends string>(field: F) {
  return {
    field,
    /** The filter that finds the documents where the condition holds. */
    filter: { [field]: true } as Record<F, true>,
    /** The update parts that keep the flag equal to `condition`. */
    holds: (condition: boolean) =>
      condition
        ? { $set: { [field]: true } as Record<F, true>, $unset: {} }
        : { $set: {}, $unset: { [field]: '' } as Record<F, ''> },
    /** Its index: sparse, so only the flagged documents are in it. */
    index: { key: { [field]: 1 } as Record<F, 1>, options: { name: `${field}_flag`, sparse: true } },
  };
}
