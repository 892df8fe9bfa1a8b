/**
 * SKILL.md examples with the verdict of the reference validator (`skills-ref validate`, the specification's
 * Python implementation): the agreement tests run rye's validator over them, and the npm port of `skills-ref`
 * where it agrees with the reference. `referenceOnly` marks the cases where the npm port differs from the
 * Python reference (it parses YAML with js-yaml, not strictyaml); rye follows the reference there.
 */
export interface SkillExample {
  title: string;
  /** The folder's name. */
  folder: string;
  skillMd: string;
  /** The reference validator's verdict (rye's too, unless `ryeStricter`). */
  valid: boolean;
  /** The reference's message contains this (for invalid examples). */
  field?: string;
  /** The npm port of skills-ref disagrees with the Python reference here. */
  referenceOnly?: boolean;
  /** rye is stricter than the reference here (documented in docs/formats.md). */
  ryeStricter?: boolean;
}

const md = (front: string, body = "# Instructions\n\nDo the thing.\n") => `---\n${front}\n---\n\n${body}`;

export const SKILL_EXAMPLES: SkillExample[] = [
  { title: "minimal", folder: "pdf-tools", skillMd: md("name: pdf-tools\ndescription: Extract text and tables from PDF files."), valid: true },
  {
    title: "every optional field",
    folder: "data-report",
    skillMd: md(
      'name: data-report\ndescription: Build a weekly report from CSV exports. Use when the user asks for a report.\nlicense: Apache-2.0\ncompatibility: Needs Python 3.11 and network access\nmetadata:\n  author: example-org\n  version: "1.2.0"\nallowed-tools: Bash(python:*) Read Write',
    ),
    valid: true,
  },
  { title: "allowed-tools as a block list", folder: "lister", skillMd: md("name: lister\ndescription: Lists things.\nallowed-tools:\n  - Read\n  - Grep"), valid: true },
  { title: "numbers and booleans read as strings", folder: "v2", skillMd: md("name: v2\ndescription: true\nmetadata:\n  version: 1.0\n  beta: yes"), valid: true },
  { title: "a description with a colon, quoted", folder: "quoted", skillMd: md('name: quoted\ndescription: "Use when: the user asks"'), valid: true },
  { title: "a folded multi-line description", folder: "folded", skillMd: md("name: folded\ndescription: >\n  A long description\n  over two lines."), valid: true },
  { title: "CRLF line endings", folder: "windows", skillMd: "---\r\nname: windows\r\ndescription: Written on Windows.\r\n---\r\n\r\nBody.\r\n", valid: true },
  { title: "an empty body", folder: "empty-body", skillMd: "---\nname: empty-body\ndescription: Nothing below.\n---\n", valid: true },

  { title: "an unexpected field", folder: "extra", skillMd: md("name: extra\ndescription: Has a version field.\nversion: 1.0.0"), valid: false, field: "Unexpected fields" },
  { title: "a line before the frontmatter", folder: "late", skillMd: `<!-- signed -->\n${md("name: late\ndescription: Starts late.")}`, valid: false, field: "must start with YAML frontmatter" },
  { title: "a byte order mark", folder: "bom", skillMd: `\uFEFF${md("name: bom\ndescription: Has a BOM.")}`, valid: false, field: "must start with YAML frontmatter" },
  { title: "no frontmatter", folder: "plain", skillMd: "# Plain\n\nJust markdown.\n", valid: false, field: "must start with YAML frontmatter" },
  { title: "frontmatter never closed", folder: "open", skillMd: "---\nname: open\ndescription: Never closed.\n", valid: false, field: "not properly closed" },
  { title: "folder and name differ", folder: "mismatch", skillMd: md("name: other\ndescription: Wrong folder."), valid: false, field: "must match" },
  { title: "upper case", folder: "Upper", skillMd: md("name: Upper\ndescription: Capitals."), valid: false, field: "lowercase" },
  { title: "an underscore", folder: "under_score", skillMd: md("name: under_score\ndescription: Underscore."), valid: false, field: "invalid characters" },
  { title: "a leading hyphen", folder: "-lead", skillMd: md("name: -lead\ndescription: Leading hyphen."), valid: false, field: "start or end" },
  { title: "a trailing hyphen", folder: "trail-", skillMd: md("name: trail-\ndescription: Trailing hyphen."), valid: false, field: "start or end" },
  { title: "two hyphens in a row", folder: "two--hyphens", skillMd: md("name: two--hyphens\ndescription: Double hyphen."), valid: false, field: "consecutive hyphens" },
  { title: "a name of 65 characters", folder: "a".repeat(65), skillMd: md(`name: ${"a".repeat(65)}\ndescription: Too long a name.`), valid: false, field: "exceeds 64" },
  { title: "a name of 64 characters", folder: "b".repeat(64), skillMd: md(`name: ${"b".repeat(64)}\ndescription: Longest name.`), valid: true },
  { title: "no description", folder: "nodesc", skillMd: md("name: nodesc"), valid: false, field: "description" },
  { title: "an empty description", folder: "blank", skillMd: md('name: blank\ndescription: ""'), valid: false, field: "description" },
  { title: "a description of 1025 characters", folder: "wordy", skillMd: md(`name: wordy\ndescription: ${"x".repeat(1025)}`), valid: false, field: "exceeds 1024" },
  { title: "a description of 1024 characters", folder: "full", skillMd: md(`name: full\ndescription: ${"x".repeat(1024)}`), valid: true },
  { title: "compatibility of 501 characters", folder: "compat", skillMd: md(`name: compat\ndescription: Compat.\ncompatibility: ${"c".repeat(501)}`), valid: false, field: "exceeds 500" },
  { title: "an unquoted colon in the description", folder: "colon", skillMd: md("name: colon\ndescription: Use when: x"), valid: false, field: "YAML" },
  { title: "a flow-style list", folder: "flow", skillMd: md("name: flow\ndescription: Flow list.\nallowed-tools: [Read, Write]"), valid: false, field: "YAML", referenceOnly: true },
  { title: "a duplicate key", folder: "dupe", skillMd: md("name: dupe\ndescription: One.\ndescription: Two."), valid: false },
  { title: "metadata that is not a map", folder: "meta", skillMd: md("name: meta\ndescription: Meta.\nmetadata: hello"), valid: true, ryeStricter: true },
  { title: "a non-ASCII name", folder: "café", skillMd: md("name: café\ndescription: Accented."), valid: true, ryeStricter: true },
];
