import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { DeviceDecision } from "@/components/auth/device-decision";
import { ProblemBox, SuccessBox } from "@/components/auth/form-bits";
import { formatUserCodeInput } from "@/components/auth/user-code";
import { describeScope } from "@/components/settings/scopes";
import { Time } from "@/components/settings/time";
import { buttonPrimary, card, code, help, input, labelText, link } from "@/components/settings/ui";
import { callApi, requireSession } from "@/lib/session";
import { signInUrl } from "@/lib/session-next";

export const metadata: Metadata = {
  title: "Connect a device",
  description: "Approve a sign-in started by the rye command line or another device.",
  openGraph: { title: "Connect a device · rye registry", description: "Approve a sign-in started by rye login." },
  robots: { index: false },
};

export const dynamic = "force-dynamic";

/** GET /v1/device: what is asking for access (apps/api/src/oauth/device-approval-routes.ts). */
interface PendingDevice {
  user_code: string;
  client_id: string;
  client_name: string;
  scope: string;
  requested_at: string;
  request_ip: string | null;
  request_user_agent: string | null;
  expires_at: string;
}

function EnterCode({ defaultValue, problem }: { defaultValue?: string; problem?: { message: string; hint?: string | undefined } | undefined }) {
  return (
    <form method="get" action="/device" className="space-y-4">
      <div aria-live="polite">{problem ? <ProblemBox problem={problem} /> : null}</div>
      <div className="space-y-1">
        <label htmlFor="user_code" className={labelText}>
          Code
        </label>
        <input
          id="user_code"
          name="user_code"
          required
          maxLength={32}
          autoComplete="off"
          autoCapitalize="characters"
          spellCheck={false}
          placeholder="XXXX-XXXX"
          defaultValue={defaultValue}
          aria-describedby="user_code-hint"
          aria-invalid={problem ? true : undefined}
          className={`${input} max-w-xs font-mono text-lg tracking-widest uppercase`}
        />
        <p id="user_code-hint" className={help}>
          The 8 letters shown by <code className={code}>rye login</code> in your terminal.
        </p>
      </div>
      <button type="submit" className={buttonPrimary}>
        Continue
      </button>
    </form>
  );
}

function Outcome({ outcome }: { outcome: "approved" | "denied" }) {
  return (
    <div className="mx-auto w-full max-w-xl space-y-6">
      <h1 className="text-2xl font-semibold tracking-tight">{outcome === "approved" ? "Device connected" : "Request denied"}</h1>
      <SuccessBox>
        {outcome === "approved" ? (
          <p>
            Return to your terminal: <code className={code}>rye login</code> finishes by itself within a few seconds.
          </p>
        ) : (
          <p>Nothing was connected to your account. The terminal that asked is told that the sign-in was refused.</p>
        )}
      </SuccessBox>
      <p className="text-sm">
        <Link href="/device" className={link}>
          Connect another device
        </Link>
      </p>
    </div>
  );
}

export default async function DevicePage({ searchParams }: { searchParams: Promise<{ user_code?: string | string[]; outcome?: string | string[] }> }) {
  const params = await searchParams;
  const raw = params.user_code;
  const typed = typeof raw === "string" ? raw.trim() : "";
  const here = typed ? `/device?user_code=${encodeURIComponent(typed)}` : "/device";
  const session = await requireSession(here);
  if (!typed && (params.outcome === "approved" || params.outcome === "denied")) return <Outcome outcome={params.outcome} />;

  const heading = (
    <div className="space-y-2">
      <h1 className="text-2xl font-semibold tracking-tight">Connect a device</h1>
      <p className={help}>
        Signed in as <strong className="text-neutral-900 dark:text-neutral-100">{session.user.username}</strong>.
      </p>
    </div>
  );

  if (!typed) {
    return (
      <div className="mx-auto w-full max-w-xl space-y-6">
        {heading}
        <p>Enter the code that your terminal or device shows to connect it to your account.</p>
        <EnterCode />
      </div>
    );
  }

  const userCode = formatUserCodeInput(typed);
  if (!userCode) {
    return (
      <div className="mx-auto w-full max-w-xl space-y-6">
        {heading}
        <EnterCode defaultValue={typed} problem={{ message: "That is not a device code", hint: "Codes have 8 letters, like BCDF-GHJK (no vowels or digits). Check the code in your terminal." }} />
      </div>
    );
  }

  const pending = await callApi<PendingDevice>(`/v1/device?user_code=${encodeURIComponent(userCode)}`);
  if (!pending.ok) {
    if (pending.problem.status === 401) redirect(signInUrl(here));
    const { problem } = pending;
    const shown =
      problem.code === "NOT_FOUND"
        ? { message: `No pending sign-in has the code ${userCode}`, hint: problem.hint ?? "Codes expire after 15 minutes and work once: run rye login again for a new one." }
        : problem.code === "RATE_LIMITED"
          ? { message: "Too many wrong codes", hint: problem.hint ?? "Wait a moment, then type the code again." }
          : { message: problem.message, hint: problem.hint };
    return (
      <div className="mx-auto w-full max-w-xl space-y-6">
        {heading}
        <EnterCode defaultValue={userCode} problem={shown} />
      </div>
    );
  }

  const device = pending.data;
  const now = Date.now();
  const scopes = device.scope.split(" ").filter(Boolean);
  return (
    <div className="mx-auto w-full max-w-xl space-y-6">
      {heading}
      <section aria-labelledby="request-heading" className={`${card} space-y-4`}>
        <h2 id="request-heading" className="text-lg font-semibold">
          {device.client_name} wants to access your account
        </h2>
        <dl className="grid grid-cols-1 gap-x-4 gap-y-2 text-sm sm:grid-cols-[10rem_1fr]">
          <dt className="font-medium text-neutral-700 dark:text-neutral-300">Code</dt>
          <dd className="font-mono text-base tracking-widest">{device.user_code}</dd>
          <dt className="font-medium text-neutral-700 dark:text-neutral-300">Application</dt>
          <dd>
            {device.client_name} <span className="text-neutral-600 dark:text-neutral-400">({device.client_id})</span>
          </dd>
          <dt className="font-medium text-neutral-700 dark:text-neutral-300">Access requested</dt>
          <dd>
            <ul className="space-y-1">
              {scopes.map((scope) => (
                <li key={scope}>
                  <code className={code}>{scope}</code> — {describeScope(scope)}
                </li>
              ))}
            </ul>
          </dd>
          <dt className="font-medium text-neutral-700 dark:text-neutral-300">Requested from</dt>
          <dd>{device.request_ip ?? "an unknown address"}</dd>
          <dt className="font-medium text-neutral-700 dark:text-neutral-300">Program</dt>
          <dd className="break-words">{device.request_user_agent ?? "unknown"}</dd>
          <dt className="font-medium text-neutral-700 dark:text-neutral-300">Requested</dt>
          <dd>
            <Time iso={device.requested_at} relative now={now} /> (<Time iso={device.requested_at} />)
          </dd>
          <dt className="font-medium text-neutral-700 dark:text-neutral-300">Code expires</dt>
          <dd>
            <Time iso={device.expires_at} relative now={now} />
          </dd>
        </dl>
        <p className="rounded-md bg-amber-50 p-3 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-100">
          Approve only if you started this sign-in yourself, just now, and the code matches the one in your terminal. Someone who sent you this link could
          otherwise act as you.
        </p>
        <DeviceDecision userCode={device.user_code} clientName={device.client_name} />
      </section>
    </div>
  );
}
