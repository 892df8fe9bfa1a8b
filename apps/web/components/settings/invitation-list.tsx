import { InvitationAnswer } from "./invitation-answer";
import { Time } from "./time";
import type { MyInvitation } from "./types";
import { card, help } from "./ui";

/** Pending invitations addressed to the visitor, each with Accept / Decline. */
export function InvitationList({ invitations, empty }: { invitations: MyInvitation[]; empty?: string }) {
  if (invitations.length === 0) return empty ? <p className={help}>{empty}</p> : null;
  return (
    <ul className="space-y-3" aria-label="Pending invitations">
      {invitations.map((inv) => (
        <li key={inv.id} className={`${card} space-y-2`}>
          <p>
            <strong>{inv.invited_by ?? "A member"}</strong> invited you to join <strong>{inv.org_display_name || inv.org}</strong>
            {inv.org_display_name ? <span className={help}> ({inv.org})</span> : null} as <strong>{inv.role}</strong>.
          </p>
          <p className={help}>
            Expires <Time iso={inv.expires_at} />
          </p>
          <InvitationAnswer invitation={inv} />
        </li>
      ))}
    </ul>
  );
}
