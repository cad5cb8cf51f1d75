/**
 * Converts the JSON5 that operators write in `openclaw.json` (comments,
 * trailing commas, unquoted keys, single-quoted strings, `+` signs, hex
 * numbers) into strict JSON for `JSON.parse`. A small scanner, not a full
 * JSON5 parser: what it does not know is passed through, and `JSON.parse`
 * reports it.
 */
export function json5ToJson(text: string): string {
  let out = "";
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i] as string;
    if (c === '"' || c === "'") {
      let j = i + 1;
      let body = "";
      while (j < n && text[j] !== c) {
        if (text[j] === "\\" && j + 1 < n) {
          const next = text[j + 1] as string;
          // Line continuation, and `\'`, which JSON does not know.
          if (next === "\n") body += "";
          else if (next === "'") body += "'";
          else body += `\\${next}`;
          j += 2;
          continue;
        }
        body += text[j] === '"' ? '\\"' : text[j];
        j++;
      }
      out += `"${body}"`;
      i = j + 1;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < n && text[i] !== "\n") i++;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? n : end + 2;
    } else if (c === ",") {
      let j = i + 1;
      for (;;) {
        while (j < n && /\s/.test(text[j] as string)) j++;
        if (text[j] === "/" && text[j + 1] === "/") while (j < n && text[j] !== "\n") j++;
        else if (text[j] === "/" && text[j + 1] === "*") j = text.indexOf("*/", j + 2) < 0 ? n : text.indexOf("*/", j + 2) + 2;
        else break;
      }
      if (text[j] !== "}" && text[j] !== "]") out += c;
      i++;
    } else if (/[A-Za-z_$]/.test(c)) {
      let j = i;
      while (j < n && /[\w$]/.test(text[j] as string)) j++;
      const word = text.slice(i, j);
      let k = j;
      while (k < n && /\s/.test(text[k] as string)) k++;
      out += text[k] === ":" ? JSON.stringify(word) : word;
      i = j;
    } else if ((c === "+" || c === "-" || /\d/.test(c)) && /^[+-]?0[xX][0-9a-fA-F]+/.test(text.slice(i, i + 20))) {
      const m = /^([+-]?)0[xX]([0-9a-fA-F]+)/.exec(text.slice(i)) as RegExpExecArray;
      out += `${m[1] === "-" ? "-" : ""}${parseInt(m[2] as string, 16)}`;
      i += m[0].length;
    } else if (c === "+" && /[\d.]/.test(text[i + 1] ?? "")) {
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}
