/**
 * The Auth emulator's REST surface that the local tooling uses: creating the local operator's
 * account, and reading the sign-in links it "sends" (its out-of-band codes endpoint), which the
 * suite prints since no email leaves the machine.
 */
export interface OobCode {
  email: string;
  requestType: string;
  oobCode: string;
  oobLink: string;
}

const OWNER = { Authorization: 'Bearer owner' }; // the Auth emulator's administrator credential

export async function ensureAuthUser(authHost: string, projectId: string, email: string): Promise<void> {
  const response = await fetch(`http://${authHost}/identitytoolkit.googleapis.com/v1/projects/${projectId}/accounts`, {
    method: 'POST',
    headers: { ...OWNER, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, emailVerified: true }),
  });
  if (response.ok) return;
  const text = await response.text();
  if (text.includes('EMAIL_EXISTS')) return;
  throw new Error(`the Auth emulator refused to create ${email}: ${response.status} ${text}`);
}

export async function emailSignInLinks(authHost: string, projectId: string): Promise<OobCode[]> {
  const response = await fetch(`http://${authHost}/emulator/v1/projects/${projectId}/oobCodes`);
  if (!response.ok) throw new Error(`the Auth emulator's oobCodes endpoint answered ${response.status}`);
  const body = (await response.json()) as { oobCodes?: OobCode[] };
  return (body.oobCodes ?? []).filter((code) => code.requestType === 'EMAIL_SIGNIN');
}

/** Prints each sign-in link the Auth emulator issues, once, as it appears (polled). */
export function watchSignInLinks(authHost: string, projectId: string, print: (code: OobCode) => void, intervalMs = 1000): { stop(): void } {
  const seen = new Set<string>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const poll = async (): Promise<void> => {
    try {
      for (const code of await emailSignInLinks(authHost, projectId)) {
        if (seen.has(code.oobCode)) continue;
        seen.add(code.oobCode);
        print(code);
      }
    } catch {
      /* the emulator is stopping or restarting; the next poll tries again */
    }
    if (!stopped) timer = setTimeout(() => void poll(), intervalMs);
  };
  void poll();
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
