// A CA and a server certificate for 127.0.0.1/localhost. Key generation is
// the slow part, so one set is made per process and shared by every sim.
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import forge from "node-forge";

export interface TlsMaterial {
  caPem: string;
  certPem: string;
  keyPem: string;
}

let cached: TlsMaterial | undefined;

function rsaPair(): { privatePem: string; publicPem: string; key: KeyObject } {
  // Measured here: 1024-bit keys generate in ~30 ms, 2048-bit ones in 0.5–1.3 s.
  // Both Node's TLS (security level 1) and Go's crypto/tls (kubectl) accept 1024 bits,
  // and these keys only ever protect loopback test traffic.
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 1024 });
  return {
    privatePem: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    publicPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    key: privateKey,
  };
}

/** Signs with Node's native RSA instead of forge's pure-JS implementation (hundreds of ms per signature). */
function signCert(cert: forge.pki.Certificate, key: KeyObject): void {
  const oid = forge.pki.oids.sha256WithRSAEncryption as string;
  cert.signatureOid = oid;
  cert.siginfo.algorithmOid = oid;
  // getTBSCertificate exists at runtime but is missing from @types/node-forge.
  const pkiExt = forge.pki as unknown as { getTBSCertificate(c: forge.pki.Certificate): forge.asn1.Asn1 };
  const tbs = pkiExt.getTBSCertificate(cert);
  const der = Buffer.from(forge.asn1.toDer(tbs).getBytes(), "binary");
  cert.signature = sign("sha256", der, key).toString("binary");
}

function serial(): string {
  const b = randomBytes(16);
  b[0] = (b[0] ?? 0) & 0x7f;
  return b.toString("hex");
}

export function tlsMaterial(): TlsMaterial {
  if (cached) return cached;
  const pki = forge.pki;
  const now = new Date(Date.now() - 60_000);
  const later = new Date(Date.now() + 365 * 24 * 3600 * 1000);

  const caKeys = rsaPair();
  const caCert = pki.createCertificate();
  caCert.publicKey = pki.publicKeyFromPem(caKeys.publicPem);
  caCert.serialNumber = serial();
  caCert.validity.notBefore = now;
  caCert.validity.notAfter = later;
  const caSubject = [{ name: "commonName", value: "kubesim-ca" }];
  caCert.setSubject(caSubject);
  caCert.setIssuer(caSubject);
  caCert.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  signCert(caCert, caKeys.key);

  const srvKeys = rsaPair();
  const cert = pki.createCertificate();
  cert.publicKey = pki.publicKeyFromPem(srvKeys.publicPem);
  cert.serialNumber = serial();
  cert.validity.notBefore = now;
  cert.validity.notAfter = later;
  cert.setSubject([{ name: "commonName", value: "kube-apiserver" }]);
  cert.setIssuer(caSubject);
  cert.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    {
      name: "subjectAltName",
      altNames: [
        { type: 2, value: "localhost" },
        { type: 2, value: "kubernetes" },
        { type: 2, value: "kubernetes.default" },
        { type: 2, value: "kubernetes.default.svc" },
        { type: 7, ip: "127.0.0.1" },
        { type: 7, ip: "::1" },
      ],
    },
    { name: "authorityKeyIdentifier", keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  signCert(cert, caKeys.key);

  cached = { caPem: pki.certificateToPem(caCert), certPem: pki.certificateToPem(cert), keyPem: srvKeys.privatePem };
  return cached;
}
