import { createHash, createHmac, createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import {
  canonicalJson,
  type ErasureKeysDto,
  type ErasureReceipt,
  type SignedErasureReceipt,
  SignedErasureReceiptSchema,
} from '@formgate/contracts';
import { type SigningSecret, signingKeys } from './signed-tokens.ts';

/** PKCS #8 DER of an Ed25519 private key, without its 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

const derive = (secret: string, purpose: string) => createHmac('sha256', secret).update(purpose).digest();

/** The normal form of an address: what its keyed hash is taken of. */
export const normalizeAddress = (address: string) => address.trim().toLowerCase();

interface ReceiptKey {
  keyId: string;
  privateKey: KeyObject;
  publicKeyPem: string;
}

function receiptKey(secret: string): ReceiptKey {
  const seed = derive(secret, 'formgate/erasure-receipts');
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKey = createPublicKey(privateKey);
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  return {
    keyId: createHash('sha256').update(spki).digest('hex').slice(0, 16),
    privateKey,
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  };
}

/**
 * The instance's privacy keys, derived from one secret (`PRIVACY_KEY`; embedded mode: `DATA_DIR/privacy-key`):
 * - the key of the address index: `addressKey(address)` is HMAC-SHA256 of the normalized address, so submissions
 *   are found by submitter without the address being stored again in clear, and an erasure's receipt and audit
 *   entry name the address only by it. During a rotation `addressKeys` answers both values, so what was indexed
 *   under the previous secret is still found.
 * - the Ed25519 key that signs erasure receipts (its seed derived from the same secret); `publicKeys()` lists the
 *   current and, during a rotation, the previous public key, so receipts signed before still verify.
 */
export function createPrivacyKeys(secret: SigningSecret) {
  const { current, previous } = signingKeys(secret, 'privacy');
  const indexKeys = [current, ...(previous === undefined ? [] : [previous])].map((s) =>
    derive(s, 'formgate/address-index'),
  );
  const signing = receiptKey(current);
  const verifying = [signing, ...(previous === undefined ? [] : [receiptKey(previous)])];
  const keyed = (key: Buffer, address: string) =>
    createHmac('sha256', key).update(normalizeAddress(address)).digest('base64url');
  return {
    /** The address's key under the current secret (what new submissions are indexed with). */
    addressKey: (address: string) => keyed(indexKeys[0] as Buffer, address),
    /** Its keys under the current and the previous secret (what a search looks for). */
    addressKeys: (address: string) => indexKeys.map((k) => keyed(k, address)),
    sign(receipt: ErasureReceipt): SignedErasureReceipt {
      const value = sign(null, Buffer.from(canonicalJson(receipt)), signing.privateKey).toString('base64url');
      return { receipt, signature: { alg: 'Ed25519', keyId: signing.keyId, value } };
    },
    publicKeys: (): ErasureKeysDto['keys'] =>
      verifying.map((k) => ({ keyId: k.keyId, alg: 'Ed25519' as const, publicKey: k.publicKeyPem })),
  };
}
export type PrivacyKeys = ReturnType<typeof createPrivacyKeys>;

/**
 * Whether `signed` is a receipt one of `keys` signed, unaltered: the key its `keyId` names, the signature over the
 * receipt's canonical JSON (`canonicalJson`). Any change to the receipt, the signature or the key id makes it false.
 */
export function verifyErasureReceipt(signed: unknown, keys: ErasureKeysDto['keys']): boolean {
  const parsed = SignedErasureReceiptSchema.safeParse(signed);
  if (!parsed.success) return false;
  const { signature } = parsed.data;
  // What was given, not what the schema kept of it: a key added to the receipt must fail the check too.
  const receipt = (signed as { receipt: unknown }).receipt;
  const key = keys.find((k) => k.keyId === signature.keyId);
  if (!key) return false;
  try {
    return verify(
      null,
      Buffer.from(canonicalJson(receipt)),
      createPublicKey(key.publicKey),
      Buffer.from(signature.value, 'base64url'),
    );
  } catch {
    return false;
  }
}
