// Every count the explorer prints goes through `counted`, so one of a thing reads "1 passage"
// and any other number "0 passages", "2 passages" — never "1 passages".

/** `count` and the noun that agrees with it: `counted(1, "entity", "entities")` is
 * "1 entity"; the plural defaults to the singular with an "s". */
export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
