/**
 * Dependency confusion: packages installed from an index the review does not know, and package names that are one
 * edit away from a popular package (typosquats) or that mix scripts (homoglyphs: a Cyrillic "е" in "requests").
 */

/** Package indexes the review treats as known (their host, and for some a path prefix). */
const KNOWN_INDEXES = [
  "pypi.org",
  "pypi.python.org",
  "files.pythonhosted.org",
  "download.pytorch.org",
  "registry.npmjs.org",
  "registry.yarnpkg.com",
  "npm.pkg.github.com",
  "conda.anaconda.org",
  "repo.anaconda.com",
  "test.pypi.org",
  "pkgs.dev.azure.com",
  "gitlab.com",
  "maven.pkg.github.com",
];

export function knownIndex(url: string): boolean {
  const m = /^[a-z+]{2,12}:\/\/(?:[^@/\s]{0,100}@)?([^/:\s]{1,200})/i.exec(url);
  if (!m) return false;
  const host = m[1]!.toLowerCase();
  return KNOWN_INDEXES.some((k) => host === k || host.endsWith(`.${k}`));
}

/** Popular PyPI and npm names: a name one edit away from one of these (and not itself one) is a likely typosquat. */
const POPULAR = new Set(
  `requests urllib3 numpy pandas scipy matplotlib seaborn django flask fastapi pydantic sqlalchemy pytest setuptools wheel pip
  boto3 botocore awscli colorama termcolor python-dateutil pyyaml beautifulsoup4 bs4 lxml pillow openai anthropic httpx aiohttp
  cryptography paramiko jinja2 markupsafe click rich typer tqdm scikit-learn sklearn tensorflow torch torchvision keras
  transformers tokenizers langchain pymongo psycopg2 psycopg2-binary redis celery gunicorn uvicorn selenium playwright pypdf
  pypdf2 pdfminer pdfplumber docutils sphinx black flake8 pylint mypy isort poetry virtualenv tox jsonschema protobuf grpcio
  six certifi idna chardet charset-normalizer attrs packaging toml tomli simplejson ujson orjson pytz tzdata pyjwt jwt
  opencv-python websocket-client websockets discord.py python-dotenv dotenv
  lodash express react react-dom vue angular axios node-fetch cross-env chalk commander yargs debug moment dayjs
  typescript eslint prettier webpack vite rollup esbuild babel-cli @babel/core jest mocha chai mongoose mongodb mysql mysql2
  pg sequelize prisma electron next nuxt svelte jquery underscore bluebird async request uuid dotenv ws socket.io
  body-parser cors helmet jsonwebtoken bcrypt bcryptjs nodemon pm2 rimraf glob minimist semver colors inquirer ora
  puppeteer cheerio marked highlight.js three d3 chart.js tailwindcss postcss autoprefixer sass less zod yup`.split(/\s+/).filter(Boolean),
);

function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return false;
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1) return false;
  let i = 0;
  while (i < la && i < lb && a[i] === b[i]) i++;
  if (la === lb) {
    // one substitution, or two adjacent characters swapped
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** Names some popular packages are distributed under that sit one edit from another popular name. */
const normalisedName = (name: string) => name.toLowerCase().replace(/_/g, "-");

export type NameVerdict = { kind: "homoglyph" } | { kind: "typosquat"; of: string } | null;

export function judgeName(raw: string): NameVerdict {
  const name = normalisedName(raw.replace(/(?:\[[^\]]{0,60}\])?(?:[=<>!~^@].{0,40})?$/, ""));
  if (!name) return null;
  // Letters from another script among ASCII ones: a look-alike of an ASCII name.
  if (/[a-z]/.test(name) && /[\u0370-\u03ff\u0400-\u04ff\u0530-\u058f\u13a0-\u13ff\u2100-\u214f\uff00-\uffef]/.test(name)) return { kind: "homoglyph" };
  if (name.length < 5 || POPULAR.has(name) || name.startsWith("@")) return null;
  for (let length = name.length - 1; length <= name.length + 1; length++) {
    for (const p of POPULAR_BY_LENGTH.get(length) ?? []) if (withinOneEdit(name, p)) return { kind: "typosquat", of: p };
  }
  // a separator dropped: crossenv / cross-env, babelcli / babel-cli
  const joined = POPULAR_JOINED.get(name);
  return joined ? { kind: "typosquat", of: joined } : null;
}

/** Popular names by length (a name one edit away has a length within one), and hyphenated ones without hyphens. */
const POPULAR_BY_LENGTH = new Map<number, string[]>();
for (const p of POPULAR) if (p.length >= 4) POPULAR_BY_LENGTH.set(p.length, [...(POPULAR_BY_LENGTH.get(p.length) ?? []), p]);
const POPULAR_JOINED = new Map([...POPULAR].filter((p) => p.includes("-")).map((p) => [p.replace(/-/g, ""), p]));

const INSTALL = /\b(?:pip3?|uv\s+pip|pipx|poetry|npm|pnpm|yarn|bun)\s+(?:-\S+\s+){0,4}(?:install|add|i)\b([^|;&\n]{0,400})/i;

/** Package names an install command on this line names (options and URLs skipped). */
export function installedNames(line: string): string[] {
  const m = INSTALL.exec(line);
  if (!m) return [];
  const names: string[] = [];
  const tokens = m[1]!.split(/[`<]/, 1)[0]!.trim().split(/\s+/, 40);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!.replace(/^["'(]{1,4}|["').,;:]{1,4}$/g, "");
    if (!t) continue;
    if (t.startsWith("-")) {
      if (/^(?:-i|--index-url|--extra-index-url|--registry|--trusted-host|-r|--requirement|-c|--constraint|-t|--target|--prefix|-f|--find-links)$/.test(t)) i++;
      continue;
    }
    if (/[/:]/.test(t) || t.startsWith(".") || t === "install" || t === "add") continue;
    names.push(t);
  }
  return names;
}

const REQUIREMENTS = /(?:^|\/)requirements[^/]{0,40}\.txt$/i;
const PACKAGE_JSON = /(?:^|\/)package\.json$/i;
export const isManifest = (path: string) => REQUIREMENTS.test(path) || PACKAGE_JSON.test(path);

/** A requirements.txt line or a package.json dependency key, as a package name (or null). */
export function manifestName(path: string, line: string): string | null {
  if (REQUIREMENTS.test(path)) {
    const m = /^\s{0,8}([^\s#;<>=!~\[-][^\s#;<>=!~\[]{0,100})/.exec(line);
    return m ? m[1]! : null;
  }
  if (PACKAGE_JSON.test(path)) {
    const m = /^\s{0,12}"([^"]{1,120})"\s*:\s*"[\^~<>=*\d]/.exec(line);
    return m ? m[1]! : null;
  }
  return null;
}
