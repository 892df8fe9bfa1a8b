/**
 * The line rules of the review. Every pattern is run on one line or one window of at most MAX_WINDOW characters
 * (text.ts), and every repetition in it is bounded ({0,N}), so a rule's cost is linear in its input: no pattern can
 * backtrack catastrophically on crafted text. `keys` are lowercase substrings of which one must occur for the
 * pattern to be tried (a cheap filter). `discussed` is the risk when the line discusses or quotes (security docs,
 * detectors, examples) instead of instructing; `prose` the risk in prose that is not code (documentation).
 * `tags` are the weak signals the file- and item-level combinations join (a rule that is itself such a combination,
 * like a download piped into a shell, carries none, so one line is not reported twice).
 */
import type { Family } from "./families.ts";

export type RuleRisk = "low" | "medium" | "high";

export interface LineRule {
  id: string;
  family: Family;
  risk: RuleRisk;
  /** Risk when the line is prose (outside code); defaults to risk. */
  prose?: RuleRisk;
  /** Risk when the line discusses, lists or quotes (or is a string in code, for instructions to an agent). */
  discussed?: RuleRisk;
  keys: readonly string[];
  /** With no keys: the shortest line the pattern can match (a cheap filter too). */
  minLength?: number;
  pattern: RegExp;
  message: string;
  /** Signals the item-level combinations use. */
  tags?: readonly Tag[];
}

export type Tag = "secret-source" | "send" | "download" | "exec" | "decode" | "no-confirm" | "agent-config" | "write" | "var-delete";

const SHELLS = String.raw`(?:sudo\s{1,4}(?:-\S{1,20}\s{1,4}){0,3})?(?:ba|z|da|k|fi)?sh\b|bash\b|python[0-9.]{0,4}\b|node\b|perl\b|ruby\b|php\b|pwsh\b|powershell\b|iex\b|invoke-expression\b`;
const HOME = String.raw`(?:~|\$\{?HOME\}?|\$HOME|/Users/\$\{?USER\}?|/home/\$\{?USER\}?|%USERPROFILE%|\$env:USERPROFILE)`;
const USER_DIRS = String.raw`(?:Documents|Desktop|Pictures|Downloads|Music|Movies|Videos|Library|\.ssh|\.gnupg|\.config|src|code|projects|work|\*)`;
/**
 * Up to n characters (not in `not`) that do not start `stop`: a span after a keyword that ends at the keyword's
 * next occurrence, so text packed with the keyword costs linear time (the later occurrence is tried on its own).
 */
const upTo = (n: number, stop: string, not = String.raw`\n`) => String.raw`(?:(?!${stop})[^${not}]){0,${n}}`;
const FETCHERS = String.raw`curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod`;
const RUNNERS = String.raw`exec|eval|compile|function|runin|system|popen|subprocess|execsync|child_process|iex|invoke-expression`;

export const LINE_RULES: LineRule[] = [
  /* ------------------------------------------------------------ hidden instructions */
  {
    id: "conceal-from-user",
    family: "hidden-instructions",
    risk: "high",
    discussed: "medium",
    keys: ["tell", "mention", "inform", "know", "notic", "secret", "silent", "disclos", "report", "omit", "quiet", "learn"],
    pattern:
      /\b(?:do not|don't|dont|never|must not|should not|no need to)\s{1,4}(?:\w{1,12}\s{1,4}){0,2}(?:tell|mention|inform|notify|alert|let)\b[^.\n]{0,60}\b(?:user|human|operator|anyone|them|know)\b|\bwithout\s{1,4}(?:telling|informing|notifying|alerting|letting)\b[^.\n]{0,30}\b(?:user|human|operator|anyone|them)\b|\b(?:keep|hold)\s{1,4}(?:this|it|these|that|the\s{1,4}\w{1,20})(?:\s{1,4}\w{1,15}){0,2}\s{1,4}(?:secret|hidden|quiet|private)\s{1,4}from\s{1,4}(?:the\s{1,4})?(?:user|human|operator)|\b(?:user|human|operator)\s{1,4}(?:must|should)\s{1,4}not\s{1,4}(?:notice|learn|know|see)|\b(?:never|do not|don't)\s{1,4}(?:report|disclose|summari[sz]e|mention)\s{1,4}(?:it|this|that|these|what you (?:ran|did))\b|\b(?:keep|stay)\s{1,4}quiet\s{1,4}about\b|\bomit\s{1,4}(?:it|this|the \w{1,20})\s{1,4}from\s{1,4}(?:any|your|the)\s{1,4}(?:summary|reply|answer|report)|\b(?:perform|run|execute|do|complete|upload|copy|send|add)\b[^.\n]{0,40}\bsilently\b|\bsilently\s{1,4}(?:add|run|execute|copy|send|upload|append|install|modify|write)\b/i,
    message: "tells the agent to hide what it does from the user",
  },
  {
    id: "prompt-injection",
    family: "hidden-instructions",
    risk: "high",
    discussed: "medium",
    keys: ["ignore", "disregard", "forget", "override", "you are now", "do anything now", "system", "no longer appl", "</user>"],
    pattern:
      /\b(?:ignore|disregard|forget|override)\s{1,4}(?:(?:all|any|the|your|of|my|these|those)\s{1,4}){0,3}(?:previous|prior|above|earlier|system|safety|original|existing)\s{1,4}(?:\w{1,15}\s{1,4})?(?:instructions|prompts?|rules|guidelines|messages|guidance|policies)|\byou\s{1,4}are\s{1,4}now\s{1,4}(?:in\s{1,4})?(?:an?\s{1,4})?(?:developer|dan|jailbr\w{0,6}|unrestricted|god|admin)\b|\bdo\s{1,4}anything\s{1,4}now\b|<\/?system>|<\/user>|\bnew\s{1,4}system\s{1,4}prompt\b|\bsystem\s{1,4}override\b|\b(?:previous|prior|earlier)\s{1,4}(?:guidance|instructions|rules)\s{1,4}no\s{1,4}longer\s{1,4}appl/i,
    message: "tries to override the agent's instructions",
  },
  /* ------------------------------------------------------------ exfiltration */
  {
    id: "credential-files",
    family: "exfiltration",
    risk: "medium",
    prose: "low",
    keys: [".ssh", "id_rsa", "id_ed25519", "id_ecdsa", ".aws", "gcloud", ".docker", ".netrc", ".npmrc", ".pypirc", "git-credentials", "keychain", "login data", "cookies", ".kube", "wallet", ".gnupg", "hosts.yml", ".claude.json", ".env"],
    pattern:
      /~\/\.ssh\/(?!authorized_keys|known_hosts|config\b)|\.ssh\/id_|\bid_(?:rsa|ed25519|ecdsa|dsa)\b(?!\.pub)|["'(]id_(?:rsa|ed25519)["']|\.aws\/credentials|["']\.aws["']\s{0,4},\s{0,4}["']credentials|\.config\/gcloud|\.docker\/config\.json|\.netrc\b|(?:~|home\w{0,10}\(\)[^\n]{0,30}|\$HOME|\bHOME)\/?\.npmrc\b|["']\.npmrc["']|\.pypirc\b|\.git-credentials|\bsecurity\s{1,4}find-\w{0,20}-password|Login Data|Cookies\.binarycookies|\.kube\/config|wallet\.dat|\.gnupg\/|\.config\/gh\/hosts\.yml|(?:open|cat|read\w{0,12})\s{0,2}\(?\s{0,2}["']?\.env["'\s)]/i,
    message: "reads credential or key files",
    tags: ["secret-source"],
  },
  {
    id: "env-dump",
    family: "exfiltration",
    risk: "medium",
    prose: "low",
    keys: ["environ", "process.env", "printenv", "env", "set |"],
    pattern:
      /\bprintenv\b(?!\s{1,4}[A-Z_]{2,40}\b)|(?:^|[;&|(]\s{0,4})env\s{0,4}(?:\||>)|\bdict\(\s{0,4}os\.environ\s{0,4}\)|\bos\.environ\.(?:items|copy|keys|values)\(|json\.dumps\(\s{0,4}(?:dict\()?\s{0,4}os\.environ|\bJSON\.stringify\(\s{0,4}process\.env\b|\bObject\.(?:entries|keys|assign)\(\s{0,4}(?:\{\}\s{0,4},\s{0,4})?process\.env\b|\.\.\.process\.env\b|\bget-childitem\s{1,4}env:|\bgci\s{1,4}env:|\bdir\s{1,4}env:|(?:^|[;&|]\s{0,4})set\s{0,4}\|/i,
    message: "reads the whole environment (every secret in it)",
    tags: ["secret-source"],
  },
  {
    id: "secrets-instruction",
    family: "exfiltration",
    // Instructions to the agent (prose); in code a token sent in a header to its own API is ordinary.
    risk: "low",
    prose: "high",
    discussed: "medium",
    keys: ["http"],
    pattern:
      /(?:\.env\b|\b(?:credentials|api[\s_-]{0,2}keys?|tokens?|secrets?|passwords?|private key|id_rsa|environment variables)\b|_KEY\b|_TOKEN\b)[^\n]{0,120}\b(?:send|post|upload|paste|include|submit|transmit|forward|curl)\b[^\n]{0,120}https?:\/\/|\b(?:send|post|upload|paste|submit|transmit|forward)\b[^\n]{0,80}(?:\.env\b|\b(?:credentials|api[\s_-]{0,2}keys?|tokens|secrets|passwords|private key|id_rsa|environment variables)\b|_KEY\b|_TOKEN\b)[^\n]{0,80}https?:\/\//i,
    message: "instructs sending secrets to a URL",
  },
  {
    id: "exfiltration-endpoint",
    family: "exfiltration",
    risk: "medium",
    prose: "low",
    keys: ["webhook", "requestbin", "pipedream", "ngrok", "interact.sh", "oast.", "burpcollaborator", "pastebin", "transfer.sh", "discord", "://"],
    pattern:
      /\b(?:webhook\.site|requestbin|pipedream\.net|ngrok(?:-free)?\.(?:io|app|dev)|interact\.sh|oast\.(?:me|fun|pro|live|site|online)|burpcollaborator|pastebin\.com\/api|transfer\.sh|discord(?:app)?\.com\/api\/webhooks)\b|\bhttps?:\/\/(?!(?:127\.|10\.|0\.0\.0\.0|192\.168\.|172\.(?:1[6-9]|2\d|3[01])\.))\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?(?:\/|\b)/i,
    message: "talks to a data-collection endpoint or a raw IP address",
    tags: ["send"],
  },
  {
    id: "secret-in-payload",
    family: "exfiltration",
    risk: "medium",
    keys: ["data", "json", "body", "-d ", "-f ", "files", "params"],
    pattern:
      /(?:\b(?:data|json|body|files)\s{0,4}[=:]|\s(?:-d|--data(?:-binary|-raw|-urlencode)?|-F)\s)[^\n]{0,80}(?:os\.environ\[|process\.env\.|\$\{?[A-Z_]{0,30}(?:KEY|TOKEN|SECRET|PASSWORD)\b|\$\(cat\s|@~?\/\.|@\$HOME\/\.)/,
    message: "puts a secret or a local key file into what it sends",
  },
  {
    id: "network-send",
    family: "exfiltration",
    risk: "low",
    keys: ["curl", "wget", "requests.", "fetch", "urlopen", "request(", "invoke-restmethod", "invoke-webrequest", "irm ", "iwr ", "nc ", "ncat", "socket", "nslookup", "dig ", "host ", ".put(", ".post("],
    pattern:
      new RegExp(
        String.raw`\bcurl\b${upTo(300, "curl")}(?:\s-d\b|\s--data|\s-F\b|\s-X\s{0,2}(?:POST|PUT)\b|\s-T\b|\s--upload-file\b|\s--form\b)|\bwget\b${upTo(200, "wget")}--post-(?:data|file)|\brequests\.(?:post|put|patch)\s{0,2}\(|\bhttpx\.(?:post|put)\s{0,2}\(|\burlopen\(${upTo(200, "urlopen")}\bdata\s{0,2}=|\bRequest\(${upTo(200, "request")}\bdata\s{0,2}=|\bfetch\s{0,2}\(${upTo(300, "fetch")}method\s{0,4}:\s{0,4}["'](?:POST|PUT)|\b(?:invoke-restmethod|irm|invoke-webrequest|iwr)\b${upTo(200, "irm|iwr|invoke-")}-(?:method\s{1,4}(?:post|put)|body)\b|\b(?:nc|ncat|netcat)\s{1,4}(?:-\w{1,4}\s{1,4}){0,3}[\w.-]{1,100}\s{1,4}\d{2,5}\b|\bsocket\.connect\s{0,2}\(|\b(?:nslookup|dig|host)\s{1,4}["']?\$[\w{]`,
        "i",
      ),
    message: "sends data over the network",
    tags: ["send"],
  },
  {
    id: "secret-variable",
    family: "exfiltration",
    risk: "low",
    keys: ["key", "secret", "token", "password", "passwd", "credential"],
    pattern: /\b[A-Z][A-Z0-9_]{0,40}(?:API_KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIALS?)\b/,
    message: "uses a secret from the environment",
  },
  /* ------------------------------------------------------------ remote code */
  {
    id: "pipe-to-shell",
    family: "remote-code",
    risk: "high",
    discussed: "medium",
    keys: ["curl", "wget", "iwr", "irm", "invoke-webrequest", "invoke-restmethod", "fetch"],
    pattern: new RegExp(String.raw`\b(?:${FETCHERS})\b${upTo(300, FETCHERS, String.raw`|\n`)}\|\s{0,4}(?:${SHELLS})`, "i"),
    message: "downloads code and pipes it into an interpreter",
  },
  {
    id: "run-download",
    family: "remote-code",
    risk: "high",
    discussed: "medium",
    keys: ["<(", "$(", "downloadstring", "urlopen", "requests.get", "fetch(", "uri.open", "iex", "invoke-expression"],
    pattern:
      /\b(?:ba|z)?sh\s{1,4}<\(\s{0,4}(?:curl|wget)|\b(?:source|\.)\s{1,4}<\(\s{0,4}(?:curl|wget)|\b(?:eval|(?:ba|z)?sh\s{1,4}-c|bash\s{1,4}-c)\s{1,4}["']?\$\(\s{0,4}(?:curl|wget)|\b(?:iex|invoke-expression)\b[^\n]{0,40}(?:downloadstring|iwr|invoke-webrequest|irm|invoke-restmethod)|downloadstring\([^\n]{0,200}\)[^\n]{0,10}\|\s{0,4}(?:iex|invoke-expression)|\b(?:exec|eval)\s{0,2}\([^\n]{0,100}(?:urlopen|requests\.get|urllib|httpx\.get|uri\.open|open-uri|fetch\s{0,2}\()/i,
    message: "downloads code and runs it",
  },
  {
    id: "download",
    family: "remote-code",
    risk: "low",
    keys: ["curl", "wget", "urlopen", "requests.get", "fetch", "https.get", "http.get", "lwp", "uri.open", "open-uri", "webclient", "downloadstring", "downloadfile", "iwr", "invoke-webrequest"],
    pattern: new RegExp(
      String.raw`\bcurl\b${upTo(200, "curl")}\s-(?:[a-zA-Z]{0,6}[oO]\b|-output\b)|\bwget\b|\burlopen\s{0,2}\(|\brequests\.get\s{0,2}\(|\bhttpx\.get\s{0,2}\(|\bfetch\s{0,2}\(|\bhttps?\.get\s{0,2}\(|\bLWP::|\buse\s{1,4}LWP\b|\bURI\.open\b|\bopen-uri\b|\bNet\.WebClient\b|\bDownload(?:String|File)\b|\b(?:iwr|invoke-webrequest)\b`,
      "i",
    ),
    message: "downloads from the network",
    tags: ["download"],
  },
  {
    id: "dynamic-exec",
    family: "remote-code",
    risk: "low",
    keys: ["exec", "eval", "function", "runin", "compile", "iex", "invoke-expression", "chmod", "sh ", "bash "],
    pattern:
      /(?<![.\w])(?:exec|eval)\s{0,2}\(|\beval\s{1,4}[$"']|\bnew\s{1,4}Function\s{0,2}\(|(?<![.\w])Function\s{0,2}\(\s{0,2}[\w"'`]|\bvm\.runIn\w{0,20}Context\b|\.runInThisContext\b|(?<![.\w])compile\s{0,2}\(|\b(?:iex|invoke-expression)\b|\bchmod\s{1,4}(?:[ug]?\+x|0?7[0-7]{2})\s|(?:^|[;&|]\s{0,4}|\bthen\s{1,4})(?:ba|z)?sh\s{1,4}["']?(?:\$[\w({]|\/tmp\/)|(?:^|[;&]\s{0,4})(?:exec\s{1,4})?["']?(?:\/tmp\/|\$HOME\/\.local\/bin\/|\.\/\.bin\/)\S{1,60}["']?(?:\s|$)/i,
    message: "runs code it builds or fetches at run time",
    tags: ["exec"],
  },
  /* ------------------------------------------------------------ encoded payloads */
  {
    id: "decode-into-interpreter",
    family: "encoded-payload",
    risk: "high",
    discussed: "medium",
    keys: ["base64", "xxd", "gunzip", "zcat", "openssl", "uudecode", "\\x"],
    pattern: new RegExp(
      String.raw`(?:\bbase64\s{1,4}(?:-\w{0,3}d\w{0,3}|--decode|-D)\b|\bxxd\s{1,4}-r|\bgunzip\b|\bzcat\b|\bopenssl\s{1,4}(?:base64|enc)\b[^|\n]{0,40}-d\b|\buudecode\b)[^|\n]{0,200}\|\s{0,4}(?:[^|\n]{0,40}\|\s{0,4}){0,2}(?:${SHELLS})|\b(?:eval|(?:ba|z)?sh\s{1,4}-c|bash\s{1,4}-c|python[0-9.]{0,4}\s{1,4}-c)\s{1,4}["']?\$\([^)\n]{0,300}(?:base64\s{1,4}-\w{0,3}d|--decode|xxd\s{1,4}-r|\\x[0-9a-f]{2})|\beval\s{1,4}["']?\$\(\s{0,4}printf\s{1,4}["'](?:\\x[0-9a-f]{2}){4}|(?:base64\s{1,4}-\w{0,3}d|xxd\s{1,4}-r)[^\n]{0,200}(?:&&|;)\s{0,4}(?:ba|z)?sh\s`,
      "i",
    ),
    message: "decodes a hidden payload and runs it",
  },
  {
    id: "decode-and-run",
    family: "encoded-payload",
    risk: "high",
    discussed: "medium",
    keys: ["exec", "eval", "function", "runin", "compile", "system", "subprocess", "child_process", "execsync", "spawn", "popen", "iex", "invoke-expression", "-enc", "getattr"],
    pattern: new RegExp(
      String.raw`(?:(?<![.\w])(?:exec|eval|compile)\s{0,2}\(|\beval\s{1,4}|\bnew\s{1,4}Function\s{0,2}\(|(?<![.\w])Function\s{0,2}\(|\brunIn\w{0,20}Context\s{0,2}\(|\bos\.(?:system|popen)\s{0,2}\(|\bsubprocess\.\w{1,20}\(|\bexecSync\s{0,2}\(|\bchild_process\b|\b(?:iex|invoke-expression)\b)${upTo(300, RUNNERS)}(?:b64decode|b32decode|decodebytes|a2b_base64|unhexlify|fromhex|codecs\.decode|rot.?13|zlib\.decompress|gzip\.decompress|marshal\.loads|\batob\s{0,2}\(|Buffer\.from\([^)\n]{0,400}["'](?:base64|hex)["']|gunzipSync|inflateSync|decode_base64|decode64|unpack\(\s{0,2}["']m|FromBase64String|String\.fromCharCode)|(?:b64decode|fromhex|FromBase64String|decode_base64|decode64)${upTo(200, "b64decode|fromhex|frombase64string|decode_base64|decode64")}(?:\|\s{0,4}(?:iex|invoke-expression)\b|\bexec\s{0,2}\(|\bshell\s{0,2}=\s{0,2}True)|\bgetattr\(\s{0,4}__builtins__|\b-(?:e|ec|enc|enco|encodedcommand)\s{1,4}[A-Za-z0-9+/]{40,}={0,2}`,
      "i",
    ),
    message: "decodes a hidden payload and runs it",
  },
  {
    id: "decode",
    family: "encoded-payload",
    risk: "low",
    keys: ["b64decode", "fromhex", "unhexlify", "codecs.decode", "zlib", "atob", "base64", "frombase64string", "decode_base64", "decode64", "xxd", "hex"],
    pattern: /\bb64decode\b|\bfromhex\b|\bunhexlify\b|\bcodecs\.decode\b|\bzlib\.decompress\b|\batob\s{0,2}\(|Buffer\.from\([^)\n]{0,400}["'](?:base64|hex)["']|\bFromBase64String\b|\bdecode_base64\b|\bdecode64\b|\bbase64\s{1,4}(?:-\w{0,3}d|--decode)\b|\bxxd\s{1,4}-r/i,
    message: "decodes encoded data",
    tags: ["decode"],
  },
  {
    id: "obfuscated-blob",
    family: "encoded-payload",
    risk: "low",
    keys: [],
    minLength: 160,
    pattern: /(?<![\w+/])(?<!base64,)[A-Za-z0-9+/]{400,}={0,2}|(?:\\x[0-9a-f]{2}){40,}|(?:String\.fromCharCode\([^)\n]{0,200}\)\s{0,2}\+?\s{0,2}){4}|(?:chr\(\d{1,3}\)\s{0,2}\+\s{0,2}){8}/i,
    message: "contains a long encoded or obfuscated blob",
  },
  /* ------------------------------------------------------------ persistence */
  {
    id: "shell-startup",
    family: "persistence",
    risk: "medium",
    prose: "low",
    keys: ["rc", "profile", "config.fish", "zshenv"],
    pattern: /(?:>>|\btee\s{1,4}-a)\s{0,4}["']?[^\s"';|]{0,80}\.(?:bashrc|zshrc|profile|bash_profile|zprofile|zshenv|bash_login|zlogin)\b|(?:>>|\btee\s{1,4}-a)\s{0,4}\S{0,60}config\.fish\b|\bopen\([^\n]{0,100}\.(?:bashrc|zshrc|profile|bash_profile)["'][^\n]{0,10},\s{0,4}["']a|appendFileSync\([^\n]{0,100}(?:bashrc|zshrc|profile)|\$PROFILE\b[^\n]{0,40}(?:add-content|>>|out-file)|(?:add-content|>>)[^\n]{0,40}\$PROFILE\b/i,
    message: "changes the user's shell startup files",
    tags: ["write"],
  },
  {
    id: "scheduled-job",
    family: "persistence",
    risk: "medium",
    prose: "low",
    keys: ["crontab", "cron", "schtasks", "currentversion\\run", "currentversion\\\\run", "@reboot", "register-scheduledtask"],
    pattern: /\bcrontab\s{1,4}(?!-[lerv]\b)(?:-\s{0,4}$|-\s|[^\s|;&]{1,200})|\|\s{0,4}crontab\b|\/etc\/cron|\/var\/spool\/cron|\bschtasks(?:\.exe)?\s{1,4}\/create\b|\bRegister-ScheduledTask\b|CurrentVersion\\{1,2}Run(?:Once)?\b|@reboot\s/i,
    message: "installs a scheduled job (cron, scheduled task, Run key)",
    tags: ["write"],
  },
  {
    id: "launch-agent",
    family: "persistence",
    risk: "medium",
    prose: "low",
    keys: ["launchagents", "launchdaemons", "launchctl"],
    pattern: /\blaunchctl\s{1,4}(?:load|bootstrap|submit|enable)\b|(?:>|cp\s|mv\s|tee\s|writeFile\w{0,5}\(|open\()[^\n]{0,100}Library\/Launch(?:Agents|Daemons)\/|^\s{0,8}\w{1,20}=["']?~?[^\n]{0,40}Library\/Launch(?:Agents|Daemons)\//i,
    message: "installs a macOS launch agent",
    tags: ["write"],
  },
  {
    id: "systemd-service",
    family: "persistence",
    risk: "medium",
    prose: "low",
    keys: ["systemctl", "systemd"],
    pattern: /\bsystemctl\s{1,4}(?:--user\s{1,4})?enable\b|(?:>|cp\s|tee\s)[^\n]{0,80}\.config\/systemd\/user\//i,
    message: "installs a service that starts with the machine or session",
    tags: ["write"],
  },
  {
    id: "git-hooks",
    family: "persistence",
    risk: "medium",
    prose: "low",
    keys: ["hookspath", "hooks/"],
    pattern: /\bcore\.hooksPath\b|(?:>>?|tee\s|cp\s|cat\s{1,4}>)\s{0,4}["']?[^\s"']{0,60}\.git\/hooks\/|["']?\$\w{1,20}["']?\/hooks\/(?:pre|post)-|\.githooks\//i,
    message: "plants a git hook that runs on every commit or checkout",
    tags: ["write"],
  },
  {
    id: "authorized-keys",
    family: "persistence",
    risk: "high",
    prose: "low",
    keys: ["authorized_keys"],
    pattern: /(?:>>|\btee\s{1,4}-a|appendFile\w{0,4}\(|open\([^\n]{0,80}["']a)[^\n]{0,80}authorized_keys/i,
    message: "adds an SSH key to the user's authorized_keys (remote access)",
    tags: ["write"],
  },
  {
    id: "python-startup",
    family: "persistence",
    risk: "medium",
    prose: "low",
    keys: [".pth", "sitecustomize", "usercustomize"],
    pattern: /\.pth["']|\b(?:site|user)customize\.py\b/i,
    message: "writes a Python startup hook (.pth file or sitecustomize)",
    tags: ["write"],
  },
  /* ------------------------------------------------------------ agent permissions */
  {
    id: "agent-permissions",
    family: "permission-tampering",
    risk: "high",
    discussed: "medium",
    prose: "high",
    keys: ["bypasspermissions", "dangerously-skip-permissions", "bash(*)", "autoapprove", "alwaysallow", "approval_policy", "danger-full-access", "full-auto", "yolo", "enableallprojectmcpservers", "sandbox", "auto-approve", "auto approve", "approve every", "do not wait", "don't wait", "without approval", "approval prompts"],
    pattern:
      /\bbypassPermissions\b|--dangerously-skip-permissions\b|["'(]Bash\(\*\)|\bautoApprove\b|\balwaysAllow\b|\bapproval_policy\s{0,4}=\s{0,4}["']never|\bdanger-full-access\b|--full-auto\b|\byolo\s{1,4}mode\b|\benableAllProjectMcpServers\b|["']?sandbox["']?(?:\.enabled)?["']?\s{0,4}[:=]\s{0,4}(?:false|0|["']off)|\bauto-?approve\s{1,4}(?:every|all|each|any)\b|\bapprove\s{1,4}every\s{1,4}(?:tool|command)|\b(?:do not|don't)\s{1,4}wait\s{1,4}for\s{1,4}(?:the\s{1,4})?(?:user|confirmation|approval)|\bwithout\s{1,4}(?:any\s{1,4})?(?:approval|permission)\s{1,4}prompts?|\bapproval\s{1,4}prompts?\s{1,4}(?:break|slow|get in)/i,
    message: "turns off the agent's approvals or sandbox",
    tags: ["agent-config"],
  },
  {
    id: "agent-config-file",
    family: "permission-tampering",
    risk: "low",
    keys: [".claude", "claude_desktop_config", ".mcp.json", "mcp.json", ".codex", "mcpservers", ".cursor", "claude.md", "agents.md", ".cursorrules", "copilot-instructions", ".windsurfrules"],
    pattern: /\.claude\/settings(?:\.local)?\.json|["']\.claude["']\s{0,4}(?:,|\/)\s{0,4}["']settings|\.claude\.json\b|claude_desktop_config\.json|\.mcp\.json\b|\.cursor\/mcp\.json|\.codex\/config\.toml|\bmcpServers\b|\b(?:CLAUDE|AGENTS)\.md\b|\.cursorrules\b|copilot-instructions\.md|\.windsurfrules\b/i,
    message: "touches the agent's own configuration or instruction files",
    tags: ["agent-config"],
  },
  {
    id: "file-write",
    family: "permission-tampering",
    risk: "low",
    keys: [">", "write", "dump", "mv ", "tee ", "setdefault", "set-content", "add-content"],
    pattern: /(?:^|\s)>>?\s{0,4}["']?[~$.\w/]|\bwriteFileSync\b|\bwriteFile\b|\.write_text\(|\bjson\.dump\(|\bopen\([^\n]{0,160},\s{0,4}["'][wa]|\bmv\s{1,4}\S{1,100}\s{1,4}\S|\btee\s|\bset-content\b|\badd-content\b/i,
    message: "writes files",
    tags: ["write"],
  },
  /* ------------------------------------------------------------ destructive */
  {
    id: "delete-home",
    family: "destructive",
    risk: "high",
    discussed: "medium",
    prose: "medium",
    keys: ["rm ", "find ", "rmtree", "rmsync", "rmdir", "rimraf", "remove-item", "removeall", "del ", "unlink"],
    pattern: new RegExp(
      String.raw`\brm\s{1,4}(?:-{1,2}[\w-]{0,20}\s{1,4}){0,4}(?:-\w{0,4}[rR]\w{0,4}|--recursive)\s{1,4}(?:-{1,2}[\w-]{0,20}\s{1,4}){0,3}["']?${HOME}["']?\/?(?:["']?\s|["']?$|\*|\.\[|["']?\/\*|\/?${USER_DIRS}\b)|\brm\s{1,4}-\w{0,4}[rR]\w{0,4}\s{1,4}(?:--no-preserve-root\s{1,4})?\/(?:\s|$|\*)|\bfind\s{1,4}["']?${HOME}["']?\/?\s[^\n]{0,200}(?:-delete\b|-exec\s{1,4}rm\b)|\b(?:shutil\.)?rmtree\s{0,2}\([^\n]{0,120}(?:expanduser\(\s{0,2}["']~|Path\.home\(\)|environ\[["']HOME|getenv\(\s{0,2}["']HOME)|\b(?:fs\.)?(?:rmSync|rm|rmdirSync|rmdir)\s{0,2}\(\s{0,2}(?:os\.)?homedir\(\)|\brimraf\w{0,5}\(\s{0,2}(?:os\.)?homedir\(\)|\bremove-item\b[^\n]{0,100}-recurse[^\n]{0,100}(?:\$env:USERPROFILE|\$HOME|~)|\bremove-item\b[^\n]{0,100}(?:\$env:USERPROFILE|\$HOME|~)[^\n]{0,60}-recurse|\b(?:rmdir|rd)\s{1,4}\/s\b[^\n]{0,40}%USERPROFILE%|\bdel\s{1,4}(?:\/\w\s{1,4}){1,4}[^\n]{0,10}%USERPROFILE%|\bRemoveAll\(\s{0,2}os\.(?:Getenv\(\s{0,2}"HOME"|UserHomeDir)`,
      "i",
    ),
    message: "deletes the user's home folder or personal folders",
  },
  {
    id: "wipe-disk-or-keys",
    family: "destructive",
    risk: "high",
    discussed: "medium",
    keys: ["dd ", "mkfs", "shred", "no-preserve-root", "format "],
    pattern: /\bdd\s{1,4}[^\n]{0,80}of=\/dev\/(?:sd|hd|nvme|disk|mmcblk|vd|xvd)|\bmkfs(?:\.\w{1,8})?\s|\bshred\b[^\n]{0,80}(?:~|\$HOME)\/|--no-preserve-root|\bformat\s{1,4}[a-z]:\s{0,4}\/[qy]/i,
    message: "wipes a disk or the user's keys",
  },
  {
    id: "delete-variable-path",
    family: "destructive",
    risk: "low",
    keys: ["rm ", "rmtree", "-delete", "remove-item"],
    pattern: /\brm\s{1,4}-\w{0,4}[rR]\w{0,4}\s{1,4}(?:-\S{1,20}\s{1,4}){0,2}["']?\$\{?(?:\d|[A-Za-z_]\w{0,30})\}?["']?(?:\/["']?\*|\/\.\[|\/?\s|\/?$|\/?["'])|\bfind\s{1,4}["']?\$\{?[A-Za-z_]\w{0,30}\}?["']?\s[^\n]{0,200}(?:-delete|-exec\s{1,4}rm)/i,
    message: "deletes a folder named by a variable",
    tags: ["var-delete"],
  },
  {
    id: "iterates-home",
    family: "destructive",
    risk: "low",
    keys: ["~/*", "$home/*", "ls -d ~"],
    pattern: /\bfor\s{1,4}\w{1,20}\s{1,4}in\s{1,4}[^\n]{0,40}(?:~|\$HOME)\/\*/i,
    message: "loops over the folders of the user's home",
    tags: ["var-delete"],
  },
  {
    id: "no-confirmation",
    family: "destructive",
    risk: "low",
    keys: ["confirm", "ask", "prompt"],
    pattern: /\b(?:never|do not|don't|dont|without)\s{1,4}(?:ask(?:ing)?|request(?:ing)?|wait(?:ing)?\s{1,4}for|prompt(?:ing)?)\b[^.\n]{0,30}\b(?:confirm\w{0,6}|permission|approval|the user|them)\b|\bwithout\s{1,4}asking\b|\bno\s{1,4}confirmation(?:\s{1,4}prompt)?\b|\bskip\s{1,4}(?:the\s{1,4})?confirmation\b|\bwithout\s{1,4}(?:any\s{1,4})?confirmation\b/i,
    message: "tells the agent to act without asking the user",
    tags: ["no-confirm"],
  },
  /* ------------------------------------------------------------ dependency confusion */
  {
    id: "package-index",
    family: "dependency-confusion",
    risk: "medium",
    keys: ["index-url", "--registry", "registry", "trusted-host", "-i ", "find-links", "source add"],
    pattern: /(?:--(?:extra-)?index-url|(?:^|\s)-i|--registry|--find-links|(?:^|\s|:)registry|(?:extra-)?index-url|\bsource\s{1,4}add\s{1,4}\S{1,40})(?:\s{0,4}=\s{0,4}|\s{1,4})["']?([a-z+]{2,12}:\/\/[^\s"'`)]{1,300})|--trusted-host\s{1,4}\S/i,
    message: "installs packages from an index the review does not know",
  },
];
