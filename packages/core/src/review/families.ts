/** The attack families the review names on each finding (as public studies of malicious agent skills group them). */
export const REVIEW_FAMILIES = [
  "hidden-instructions",
  "exfiltration",
  "remote-code",
  "encoded-payload",
  "persistence",
  "permission-tampering",
  "destructive",
  "dependency-confusion",
] as const;
export type Family = (typeof REVIEW_FAMILIES)[number];
