/**
 * A text's length as the API's limits count it: in characters (Unicode code points), as the gateway's schemas
 * (ajv) and Postgres' `char_length` count them, not in UTF-16 units (`string.length`, which counts an emoji as
 * two). A service that checked `.length` refused a title of 500 characters holding emoji that the gateway had let
 * through.
 */
export function characterCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
