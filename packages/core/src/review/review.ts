/**
 * Static review of an item or skill before anyone trusts it: rules over every text file that flag what the
 * public studies of malicious agent skills found — instructions to hide things from the user, remote code fetched
 * and run, credentials or keys read and sent out, encoded payloads that are decoded and run, prompt-injection
 * phrasing, and scripts that reach outside the skill. Each finding has a risk; the item's risk is the highest.
 *
 * It is a screen, not a proof: it exists to put a human's eyes on the right lines. False alarms on ordinary skills
 * matter as much as misses, so rules that match common legitimate text (reading one API key from the environment,
 * `curl` to download data) are low risk unless combined with something worse in the same file.
 */
export type Risk = "none" | "low" | "medium" | "high";
export const RISK_ORDER: readonly Risk[] = ["none", "low", "medium", "high"];

export interface ReviewFile {
  path: string;
  text: string;
}

export interface Finding {
  rule: string;
  risk: Exclude<Risk, "none">;
  path: string;
  /** 1-based. */
  line: number;
  /** The matched line, trimmed and cut to 160 characters. */
  excerpt: string;
  message: string;
}

export interface Review {
  risk: Risk;
  findings: Finding[];
}

interface LineRule {
  id: string;
  risk: Finding["risk"];
  pattern: RegExp;
  message: string;
}

const LINE_RULES: LineRule[] = [
  {
    id: "conceal-from-user",
    risk: "high",
    pattern:
      /\b(?:do not|don't|never|must not)\s+(?:tell|mention|inform|reveal|show|disclose|report|let)\b[^.\n]{0,40}\b(?:user|human|anyone|them|operator|this)\b|\bwithout\s+(?:telling|informing|notifying|alerting)\s+(?:the\s+)?(?:user|human|anyone)|\b(?:keep|hide)\b[^.\n]{0,30}\b(?:secret|hidden)\b[^.\n]{0,20}\bfrom\s+(?:the\s+)?(?:user|human)|\bhide\s+(?:this|these|it|the\s+\w+)\s+from\s+(?:the\s+)?(?:user|human)/i,
    message: "tells the agent to hide something from the user",
  },
  {
    id: "remote-code-execution",
    risk: "high",
    pattern:
      /\b(?:curl|wget|fetch|iwr|invoke-webrequest)\b[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|\b(?:ba)?sh\s+<\(\s*(?:curl|wget)|\beval\s+"?\$\(\s*(?:curl|wget)|\biex\s*\(?\s*(?:iwr|invoke-webrequest|\(new-object\s+net\.webclient\))|\bexec\s*\(\s*(?:urllib|requests)\b[^\n]*\.(?:read|text|content)|\bpython3?\s+-c\s+["'][^\n]*(?:urlopen|requests\.get)[^\n]*exec/i,
    message: "downloads code and runs it",
  },
  {
    id: "decode-and-run",
    risk: "high",
    pattern: /\bbase64\s+(?:-d|--decode)\b[^\n]*\|\s*(?:ba|z)?sh\b|\beval\s*\(\s*(?:atob|Buffer\.from)\s*\(|\bexec\s*\(\s*(?:base64\.b64decode|codecs\.decode|bytes\.fromhex|zlib\.decompress)|\bnew\s+Function\s*\(\s*atob\s*\(/i,
    message: "decodes a hidden payload and runs it",
  },
  {
    id: "credential-files",
    risk: "high",
    pattern:
      /~\/\.ssh\/|\bid_(?:rsa|ed25519|ecdsa)\b|\.aws\/credentials|\.config\/gcloud|\.docker\/config\.json|\.netrc\b|\.npmrc\b|\.pypirc\b|\.git-credentials|\bkeychain\b|Login Data|Cookies\.binarycookies|\.kube\/config|wallet\.dat|\.gnupg\//i,
    message: "reads credential or key files",
  },
  {
    id: "exfiltration-endpoint",
    risk: "high",
    pattern: /\b(?:webhook\.site|requestbin|pipedream\.net|ngrok(?:-free)?\.(?:io|app)|interact\.sh|oast\.(?:me|fun|pro)|burpcollaborator|pastebin\.com\/api|discord(?:app)?\.com\/api\/webhooks|transfer\.sh)\b|\bhttps?:\/\/\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\//i,
    message: "sends data to a collection endpoint or a raw IP address",
  },
  {
    id: "prompt-injection",
    risk: "high",
    pattern:
      /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+)*(?:previous|prior|above|earlier|system|safety|original)\s+(?:instructions|prompts?|rules|guidelines|messages)|\byou\s+are\s+now\s+(?:in\s+)?(?:developer|dan|jailbreak|unrestricted|god)\b|\bdo\s+anything\s+now\b|<\/?system>|\bnew\s+system\s+prompt\b/i,
    message: "tries to override the agent's instructions",
  },
  {
    id: "shell-profile-persistence",
    risk: "high",
    pattern: />>?\s*~?\/?[^\s]*\.(?:bashrc|zshrc|profile|bash_profile)\b|\bcrontab\s+(?:-[^l\s]|\S+\s*$)|\/etc\/(?:sudoers|passwd|shadow|cron\.)|launchctl\s+load|systemctl\s+enable/i,
    message: "changes the machine outside the skill (shell profile, cron, system files)",
  },
  {
    id: "destructive-outside",
    risk: "high",
    pattern: /\brm\s+-[a-z]*r[a-z]*f?\s+(?:~|\/|\$HOME)\/?(?:\s|$|\*)|\bchmod\s+-R\s+777\s+\/|\bmkfs\.|\bdd\s+if=\S+\s+of=\/dev\//i,
    message: "deletes or overwrites things outside the skill",
  },
  {
    id: "secret-in-payload",
    risk: "high",
    pattern:
      /(?:\b(?:data|json|params|body|files)\s*[=:]|\s(?:-d|--data(?:-binary|-raw)?|-F)\s)[^\n]{0,80}(?:os\.environ|process\.env|\$\{?[A-Z_]*(?:KEY|TOKEN|SECRET|PASSWORD)|\b[A-Z_]*(?:API_KEY|SECRET|TOKEN|PASSWORD)\b|\$\(cat\s|@~?\/)/,
    message: "puts a secret or a local file into what it sends",
  },
  {
    id: "env-dump",
    risk: "medium",
    pattern: /\bprintenv\b(?!\s+[A-Z_]+\b)|\benv\s*(?:\||>)|\bos\.environ\b(?!\s*(?:\.get|\[))|\bprocess\.env\b(?!\s*(?:\.|\[))|\bset\s*\|\s*(?:curl|nc)\b/i,
    message: "reads the whole environment (every secret in it)",
  },
  {
    id: "obfuscated-blob",
    risk: "medium",
    pattern: /[A-Za-z0-9+/]{240,}={0,2}|(?:\\x[0-9a-f]{2}){24,}|(?:String\.fromCharCode\([^)]*\)\s*\+?\s*){4,}|(?:chr\(\d+\)\s*\+\s*){8,}/i,
    message: "contains a long encoded or obfuscated blob",
  },
  {
    id: "outside-skill-path",
    risk: "medium",
    pattern: /(?:^|[\s"'=(])(?:\.\.\/){2,}|(?:^|[\s"'=(])\/(?:root|home\/[^/\s]+)\/(?!\S*skills?)/i,
    message: "reaches paths outside the skill folder",
  },
  {
    id: "secret-variable",
    risk: "low",
    pattern: /\b[A-Z][A-Z0-9_]*(?:API_KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIALS?)\b/,
    message: "uses a secret from the environment",
  },
  {
    id: "network-send",
    risk: "low",
    pattern: /\bcurl\b[^\n]*(?:\s-d\b|\s--data\b|\s-F\b|\s-X\s*POST\b|\s-T\b)|\brequests\.(?:post|put)\s*\(|\bfetch\s*\([^)]*method\s*:\s*["'](?:POST|PUT)|\bnc\s+(?:-\w+\s+)*\S+\s+\d+\b|\bsocket\.connect\s*\(/i,
    message: "sends data over the network",
  },
];

/** Whether a finding of `risk` is at least `floor`. */
export function atLeast(risk: Risk, floor: Risk): boolean {
  return RISK_ORDER.indexOf(risk) >= RISK_ORDER.indexOf(floor);
}

const excerptOf = (line: string) => {
  const trimmed = line.trim();
  return trimmed.length > 160 ? `${trimmed.slice(0, 157)}…` : trimmed;
};

/** Reviews the text files of an item or skill (binary files are the caller's to skip). */
export function reviewFiles(files: readonly ReviewFile[]): Review {
  const findings: Finding[] = [];
  for (const file of files) {
    const lines = file.text.split(/\r?\n/);
    const inFile: Finding[] = [];
    lines.forEach((line, i) => {
      for (const rule of LINE_RULES) {
        if (rule.pattern.test(line)) inFile.push({ rule: rule.id, risk: rule.risk, path: file.path, line: i + 1, excerpt: excerptOf(line), message: rule.message });
      }
    });
    // The whole environment or key files read, and data sent, in one file: exfiltration. (One API key and an API
    // call is what ordinary API clients do; that combination stays low.)
    const secret = inFile.find((f) => f.rule === "env-dump" || f.rule === "credential-files");
    const send = inFile.find((f) => f.rule === "network-send" || f.rule === "exfiltration-endpoint");
    if (secret && send) {
      inFile.push({ rule: "secret-exfiltration", risk: "high", path: file.path, line: send.line, excerpt: send.excerpt, message: `reads secrets (line ${secret.line}) and sends data out (line ${send.line})` });
    }
    findings.push(...inFile);
  }
  const risk = findings.reduce<Risk>((top, f) => (atLeast(f.risk, top) ? f.risk : top), "none");
  findings.sort((a, b) => RISK_ORDER.indexOf(b.risk) - RISK_ORDER.indexOf(a.risk) || a.path.localeCompare(b.path) || a.line - b.line);
  return { risk, findings };
}

/** The review of a skill's or bundle's files: text files are read (UTF-8), binary ones skipped. */
export function reviewTextFiles(files: readonly { path: string; bytes: Uint8Array }[]): Review {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const texts: ReviewFile[] = [];
  for (const file of files) {
    try {
      texts.push({ path: file.path, text: decoder.decode(file.bytes) });
    } catch {
      // not text: nothing for a line review to read
    }
  }
  return reviewFiles(texts);
}

/** What a registry stores and serves of a review: the risk and the findings (at most 50, highest risk first). */
export function reviewSummary(review: Review): { risk: Risk; findings: Finding[]; truncated: boolean } {
  return { risk: review.risk, findings: review.findings.slice(0, 50), truncated: review.findings.length > 50 };
}
