/**
 * Private keys as they are made: node's key pairs as PEM in each shape it writes, and an ed25519 key
 * in OpenSSH's own format, built here as ssh-keygen writes one (no ssh-keygen needed).
 */
import { generateKeyPairSync } from "node:crypto";

/** Node's key pairs as PEM, each shape it writes: PKCS#8 (plain and encrypted), PKCS#1 and SEC1 (plain and with `Proc-Type:` headers). */
export function generatedKeys(): Array<[string, string]> {
  const keys: Array<[string, string]> = [];
  const types: Array<[string, Record<string, unknown>]> = [["ed25519", {}], ["ed448", {}], ["x25519", {}], ["ec", { namedCurve: "P-256" }], ["rsa", { modulusLength: 1024 }], ["dsa", { modulusLength: 1024 }]];
  for (const [type, options] of types) {
    const { privateKey } = generateKeyPairSync(type as "ed25519", options);
    keys.push([`${type} pkcs8`, privateKey.export({ type: "pkcs8", format: "pem" }) as string]);
    keys.push([`${type} pkcs8 encrypted`, privateKey.export({ type: "pkcs8", format: "pem", cipher: "aes-256-cbc", passphrase: "pass" }) as string]);
    const own = type === "rsa" ? "pkcs1" : type === "ec" ? "sec1" : undefined;
    if (own) {
      keys.push([`${type} ${own}`, privateKey.export({ type: own, format: "pem" }) as string]);
      keys.push([`${type} ${own} encrypted`, privateKey.export({ type: own, format: "pem", cipher: "aes-128-cbc", passphrase: "pass" }) as string]);
    }
  }
  return keys;
}

/** An ed25519 key in OpenSSH's format (`openssh-key-v1`, PROTOCOL.key), unencrypted, its base64 at 70 a line. */
export function opensshKey(): string {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const pub = (publicKey.export({ format: "jwk" }) as { x: string }).x;
  const seed = (privateKey.export({ format: "jwk" }) as { d: string }).d;
  const str = (b: Buffer | string) => {
    const body = Buffer.from(b);
    const n = Buffer.alloc(4);
    n.writeUInt32BE(body.length);
    return Buffer.concat([n, body]);
  };
  const u32 = (v: number) => {
    const n = Buffer.alloc(4);
    n.writeUInt32BE(v);
    return n;
  };
  const pk = Buffer.from(pub, "base64url");
  const blob = Buffer.concat([str("ssh-ed25519"), str(pk)]);
  let priv = Buffer.concat([u32(0x1234abcd), u32(0x1234abcd), str("ssh-ed25519"), str(pk), str(Buffer.concat([Buffer.from(seed, "base64url"), pk])), str("me@host")]);
  for (let k = 1; priv.length % 8 !== 0; k++) priv = Buffer.concat([priv, Buffer.from([k])]);
  const all = Buffer.concat([Buffer.from("openssh-key-v1\0"), str("none"), str("none"), str(""), u32(1), str(blob), str(priv)]).toString("base64");
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${all.match(/.{1,70}/g)!.join("\n")}\n-----END OPENSSH PRIVATE KEY-----\n`;
}

