/** Characters a POSIX shell reads literally in an unquoted word. */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * `text` as one POSIX shell word, quoted only when it needs to be, so a printed command stays readable and runs
 * as pasted (paths with spaces or quotes included).
 */
export function shellWord(text: string): string {
  if (PLAIN_WORD.test(text)) return text;
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
