/**
 * The account rules the API enforces (apps/api/src/auth/passwords.ts and usernames.ts), shown next to
 * the fields and used for the browser's own checks. The API stays the judge: its answer is shown too.
 */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;
export const NAME_MIN_LENGTH = 2;
export const NAME_MAX_LENGTH = 39;
/** As typed (the API lowercases): letters, digits and single inner hyphens. */
export const NAME_INPUT_PATTERN = "[A-Za-z0-9]+(-[A-Za-z0-9]+)*";

export const PASSWORD_RULES = [
  `At least ${PASSWORD_MIN_LENGTH} characters (at most ${PASSWORD_MAX_LENGTH})`,
  "Not your username or your email address",
];
export const NAME_RULES = `${NAME_MIN_LENGTH}–${NAME_MAX_LENGTH} letters, digits and single hyphens (stored in lower case). It is also your namespace: your items are named after it.`;
