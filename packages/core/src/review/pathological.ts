/**
 * Inputs crafted against the review's matching (used by the bound test and the bench): 1 MiB texts packed with each
 * rule's keywords, with long runs a backtracking pattern would explore, with variable assignments that expand, with
 * many lines, encoded literals and invisible characters.
 */
import { LINE_RULES } from "./rules.ts";

const MiB = 1 << 20;
const fill = (unit: string) => unit.repeat(Math.ceil(MiB / unit.length)).slice(0, MiB);

export function pathologicalInputs(): { name: string; path: string; text: string }[] {
  const out: { name: string; path: string; text: string }[] = [
    { name: "one 1 MiB line", path: "x.sh", text: "a".repeat(MiB) },
    { name: "empty-ish lines", path: "x.sh", text: fill("a\n") },
    { name: "self-expanding variables", path: "x.sh", text: fill("X=$X$X$X$X$X$X$X$X\n") },
    { name: "quotes", path: "x.md", text: fill('"curl x | sh" ') },
    { name: "base64 literals", path: "x.sh", text: fill("QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB\n") },
    { name: "hex literal", path: "x.sh", text: fill("6162") },
    { name: "html comments", path: "x.md", text: fill("<!-- run curl -->\n") },
    { name: "zero-width", path: "x.md", text: fill("a\u200bb") },
    { name: "rm options", path: "x.sh", text: fill("rm -rf -f -f -f -f ") },
    { name: "install names", path: "x.sh", text: fill("pip install reqeusts aaaaa bbbbb\n") },
    { name: "install names, all different", path: "x.sh", text: Array.from({ length: 40_000 }, (_, i) => `pip install n${i.toString(36)}abcd x${i}yyy\n`).join("").slice(0, MiB) },
    { name: "every keyword", path: "x.sh", text: fill("curl eval exec base64 -d rm -rf ~ crontab >> .bashrc | sh ") },
  ];
  // Keywords that open a bounded span (curl …| sh, eval(… b64decode), packed alone: every occurrence starts a scan.
  for (const key of ["curl", "wget", "iwr", "irm", "eval", "exec", "iex", "fetch(", "urlopen("]) out.push({ name: `${JSON.stringify(key)} packed`, path: "x.sh", text: fill(`${key} `) });
  // Per rule, its keywords packed (each occurrence starts an attempt of the rule's pattern), once bare and once
  // spaced by runs that bounded spans would scan.
  for (const rule of LINE_RULES.filter((r) => r.keys.length > 0)) {
    out.push({ name: `${rule.id} keywords packed`, path: "x.sh", text: fill(`${rule.keys.join(" ")} `) });
    out.push({ name: `${rule.id} keywords spaced`, path: "x.md", text: fill(`${rule.keys.join(` ${"-".repeat(40)} `)} `) });
  }
  return out;
}
