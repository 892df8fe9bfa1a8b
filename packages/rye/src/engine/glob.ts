/** Item-id globs for batch signing: `*` within a segment, `**` across segments, `?` one character. */

export function isGlob(pattern: string): boolean {
  return /[*?]/.test(pattern);
}

export function globToRegExp(pattern: string): RegExp {
  // A pattern without '/' matches at any depth, as in the original (`**/<pattern>`).
  const full = pattern === "*" ? "**" : pattern.includes("/") ? pattern : `**/${pattern}`;
  let re = "";
  for (let i = 0; i < full.length; i++) {
    const ch = full[i]!;
    if (ch === "*" && full[i + 1] === "*") {
      const slash = full[i + 2] === "/";
      re += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (ch === "*") re += "[^/]*";
    else if (ch === "?") re += "[^/]";
    else re += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}
