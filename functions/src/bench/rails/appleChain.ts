import { createPrivateKey, generateKeyPairSync, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { KJUR } from 'jsrsasign';

/**
 * A certificate chain made locally (tests and the benchmark), shaped like Apple's: a self-signed root, an
 * intermediate CA carrying Apple's marker OID 1.2.840.113635.100.6.2.1 and a leaf carrying
 * 1.2.840.113635.100.6.11.1. Its leaf signs ES256 JWS with the x5c header App Store data uses,
 * so the real `SignedDataVerifier` verifies them against the root configured for the project.
 * Never used by the service itself: only tests and `npm run bench` import it.
 */
export const INTERMEDIATE_MARKER = '1.2.840.113635.100.6.2.1';
export const LEAF_MARKER = '1.2.840.113635.100.6.11.1';

interface KeyPair {
  privatePem: string;
  publicPem: string;
  privateKey: KeyObject;
}

function keyPair(): KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKey,
  };
}

/** X.509 `UTCTime` (YYMMDDhhmmssZ). */
const utc = (ms: number): string => new Date(ms).toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';

let serial = 1;
function certificate(options: { subject: string; issuer: string; subjectKey: KeyPair; issuerKey: KeyPair; ca: boolean; markers: string[]; notBefore: number; notAfter: number }): string {
  const ext: unknown[] = [{ extname: 'basicConstraints', cA: options.ca, critical: true }];
  for (const oid of options.markers) ext.push({ extname: oid, extn: '0500' });
  serial += 1;
  const cert = new KJUR.asn1.x509.Certificate({
    version: 3,
    serial: { int: serial },
    issuer: { str: options.issuer },
    subject: { str: options.subject },
    notbefore: utc(options.notBefore),
    notafter: utc(options.notAfter),
    sbjpubkey: options.subjectKey.publicPem,
    ext,
    sigalg: 'SHA256withECDSA',
    cakey: options.issuerKey.privatePem,
  } as never);
  return new X509Certificate(cert.getPEM()).raw.toString('base64');
}

export interface AppleChainOptions {
  /** Validity of the leaf (defaults: a year around now). */
  leafNotBefore?: number;
  leafNotAfter?: number;
  /** Leave Apple's marker OIDs out (a chain any CA could issue). */
  withoutMarkers?: boolean;
}

export class AppleChain {
  readonly rootBase64: string;
  private readonly x5c: string[];
  private readonly leafKey: KeyObject;

  constructor(options: AppleChainOptions = {}) {
    const now = Date.now();
    const year = 365 * 86_400_000;
    const root = keyPair();
    const intermediate = keyPair();
    const leaf = keyPair();
    this.rootBase64 = certificate({ subject: '/CN=Test Apple Root CA', issuer: '/CN=Test Apple Root CA', subjectKey: root, issuerKey: root, ca: true, markers: [], notBefore: now - 5 * year, notAfter: now + 5 * year });
    const intermediateCert = certificate({
      subject: '/CN=Test Apple Worldwide Developer Relations CA',
      issuer: '/CN=Test Apple Root CA',
      subjectKey: intermediate,
      issuerKey: root,
      ca: true,
      markers: options.withoutMarkers ? [] : [INTERMEDIATE_MARKER],
      notBefore: now - 2 * year,
      notAfter: now + 2 * year,
    });
    const leafCert = certificate({
      subject: '/CN=Test Prod ECC Mac App Store and iTunes Store Receipt Signing',
      issuer: '/CN=Test Apple Worldwide Developer Relations CA',
      subjectKey: leaf,
      issuerKey: intermediate,
      ca: false,
      markers: options.withoutMarkers ? [] : [LEAF_MARKER],
      notBefore: options.leafNotBefore ?? now - year,
      notAfter: options.leafNotAfter ?? now + year,
    });
    this.x5c = [leafCert, intermediateCert, this.rootBase64];
    this.leafKey = createPrivateKey(leaf.privatePem);
  }

  /** An ES256 JWS over `payload` with this chain in `x5c`. */
  sign(payload: Record<string, unknown>): string {
    const header = Buffer.from(JSON.stringify({ alg: 'ES256', x5c: this.x5c })).toString('base64url');
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    const signature = sign('sha256', Buffer.from(`${header}.${body}`), { key: this.leafKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    return `${header}.${body}.${signature}`;
  }
}
