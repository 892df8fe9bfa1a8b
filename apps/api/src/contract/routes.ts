/** Every declared route, for the document (contract/document.ts). A route group that moves to declarations adds its routes here. */
import type { RouteConfig } from "@hono/zod-openapi";
import { changesRoute } from "../routes/changes.ts";
import { healthRoute, readyRoute } from "../routes/health.ts";
import { keysRoute, publicKeyRoute } from "../routes/keys.ts";
import { logCheckpointRoute, logEntriesRoute } from "../routes/log.ts";
import { qualityRoute } from "../routes/quality.ts";
import { relationsRoute } from "../routes/relations.ts";
import { statsRoute } from "../routes/stats.ts";
import { tlogCheckpointRoute, tlogConsistencyRoute, tlogInclusionRoute, tlogInfoRoute, tlogTileRoute } from "../routes/tlog.ts";
// item side: items, search, downloads, bundles, skills
import { pullRoute, pushRoute } from "../routes/items.ts";
import { itemDetailsRoute, searchRoute } from "../routes/search.ts";
import { downloadsRoute } from "../routes/downloads.ts";
import { bundlePullRoute, bundlePushRoute } from "../routes/bundles.ts";
import { skillPullRoute, skillPushRoute } from "../routes/skills.ts";
import { agentSkillsIndexRoute, namespaceIndexRoute, skillArtifactRoute, skillIndexRoute } from "../routes/skills-well-known.ts";

export const DECLARED_ROUTES: RouteConfig[] = [healthRoute, readyRoute, publicKeyRoute, keysRoute, statsRoute, relationsRoute, qualityRoute, logEntriesRoute, logCheckpointRoute, changesRoute, tlogInfoRoute, tlogCheckpointRoute, tlogTileRoute, tlogInclusionRoute, tlogConsistencyRoute];

// item side (a group of its own, so route groups moved in parallel merge without touching each other's lines)
DECLARED_ROUTES.push(
  pushRoute, pullRoute,
  searchRoute, itemDetailsRoute,
  downloadsRoute,
  bundlePushRoute, bundlePullRoute,
  skillPushRoute, skillPullRoute,
  agentSkillsIndexRoute, namespaceIndexRoute, skillIndexRoute, skillArtifactRoute,
);

// account side: management, approval, accounts, tokens, author keys, organizations, namespaces, webhooks, verification
import { deleteRoute, deprecateRoute, publishRoute, transferRoute, unpublishRoute, unyankRoute, visibilityRoute, yankRoute } from "../routes/manage.ts";
import { approveRoute, getOrgApprovalRoute, listHeldVersionsRoute, rejectRoute, setOrgApprovalRoute } from "../routes/approvals.ts";
import { providersRoute, supabaseSessionRoute, upstreamCallbackRoute, upstreamStartRoute } from "../routes/upstream-auth.ts";
import { sessionRoute, signInRoute, signOutRoute, signUpRoute, whoamiRoute } from "../routes/accounts.ts";
import { createTokenRoute, listTokensRoute, revokeTokenRoute } from "../routes/tokens.ts";
import { listOAuthGrantsRoute, revokeOAuthGrantRoute } from "../routes/oauth-grants.ts";
import { listUserKeysRoute, registerUserKeyRoute, revokeUserKeyRoute } from "../routes/user-keys.ts";
import {
  acceptInvitationRoute,
  acceptMyInvitationRoute,
  createOrgRoute,
  createOrgTokenRoute,
  declineMyInvitationRoute,
  getOrgRoute,
  inviteMemberRoute,
  listOrgInvitationsRoute,
  listOrgTokensRoute,
  myInvitationsRoute,
  myOrgsRoute,
  removeMemberRoute,
  revokeOrgInvitationRoute,
  revokeOrgTokenRoute,
  getOrgRemoteMcpRoute,
  setOrgRemoteMcpRoute,
  setMemberRoleRoute,
} from "../routes/orgs.ts";
import { namespaceRoute } from "../routes/namespaces.ts";
import { namespaceKeysRoute } from "../routes/namespace-keys.ts";
import { createWebhookRoute, deleteWebhookRoute, listDeliveriesRoute, listWebhooksRoute, pingRoute, redeliverRoute, updateWebhookRoute } from "../routes/webhooks.ts";
import {
  checkVerificationRoute,
  finishGithubVerificationRoute,
  listVerificationsRoute,
  removeVerificationRoute,
  startGithubVerificationRoute,
  startVerificationRoute,
  transferVerificationRoute,
  verifiedNamesRoute,
} from "../routes/verifications.ts";

// account side (a group of its own, like the item side's)
DECLARED_ROUTES.push(
  ...[visibilityRoute, publishRoute, unpublishRoute, yankRoute, unyankRoute, deprecateRoute, deleteRoute, transferRoute],
  ...[listHeldVersionsRoute, approveRoute, rejectRoute, getOrgApprovalRoute, setOrgApprovalRoute],
  ...[providersRoute, upstreamStartRoute, upstreamCallbackRoute, supabaseSessionRoute, signUpRoute, signInRoute, signOutRoute, sessionRoute, whoamiRoute],
  ...[createTokenRoute, listTokensRoute, revokeTokenRoute, listOAuthGrantsRoute, revokeOAuthGrantRoute],
  ...[listUserKeysRoute, registerUserKeyRoute, revokeUserKeyRoute],
  ...[createOrgRoute, acceptInvitationRoute, myOrgsRoute, myInvitationsRoute, acceptMyInvitationRoute, declineMyInvitationRoute, getOrgRoute, inviteMemberRoute],
  ...[listOrgInvitationsRoute, revokeOrgInvitationRoute, setMemberRoleRoute, removeMemberRoute, createOrgTokenRoute, listOrgTokensRoute, revokeOrgTokenRoute, getOrgRemoteMcpRoute, setOrgRemoteMcpRoute],
  ...[namespaceRoute, namespaceKeysRoute],
  ...[listWebhooksRoute, createWebhookRoute, updateWebhookRoute, deleteWebhookRoute, listDeliveriesRoute, redeliverRoute, pingRoute],
  ...[startVerificationRoute, listVerificationsRoute, checkVerificationRoute, removeVerificationRoute, transferVerificationRoute, startGithubVerificationRoute, finishGithubVerificationRoute, verifiedNamesRoute],
);

// OAuth side: the authorization server's metadata and endpoints, the person's side of the device flow, the protected
// resource metadata, and this document's own route (a group of its own)
import { authorizationServerMetadataRoute, jwksRoute } from "../oauth/metadata-routes.ts";
import { mcpProtectedResourceRoute, protectedResourceRoute } from "../oauth/protected-resource.ts";
import { mcpRoute } from "../mcp/declaration.ts";
import { deviceAuthorizationRoute, revokeRoute, tokenRoute } from "../oauth/token-routes.ts";
import { authorizationDecisionRoute, authorizeRoute } from "../oauth/authorize-routes.ts";
import { registerClientRoute } from "../oauth/registration-routes.ts";
import { approveDeviceRoute, denyDeviceRoute, deviceRequestRoute } from "../oauth/device-approval-routes.ts";
import { apiDocumentRoute } from "../routes/api-document.ts";

DECLARED_ROUTES.push(
  ...[authorizationServerMetadataRoute, mcpProtectedResourceRoute, protectedResourceRoute, jwksRoute],
  mcpRoute,
  ...[deviceAuthorizationRoute, tokenRoute, revokeRoute, authorizeRoute, authorizationDecisionRoute, registerClientRoute],
  ...[deviceRequestRoute, approveDeviceRoute, denyDeviceRoute],
  apiDocumentRoute,
);
