import QRCode from 'qrcode';
import { useEffect, useState } from 'react';

/**
 * The authenticator app's `otpauth://` URI as a QR code: an SVG drawn by `qrcode`, shown as an image (a data URL), so
 * nothing of it is ever parsed as markup in the page.
 */
export function TotpQrCode({ uri }: { uri: string }) {
  const [svg, setSvg] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    QRCode.toString(uri, { type: 'svg', margin: 2 }).then(
      (drawn) => current && setSvg(drawn),
      () => current && setSvg(null),
    );
    return () => {
      current = false;
    };
  }, [uri]);
  const box = 'size-44 rounded-md border border-zinc-200 bg-white dark:border-zinc-700';
  if (!svg) return <div className={box} />;
  return (
    <img
      src={`data:image/svg+xml;utf8,${encodeURIComponent(svg)}`}
      alt="QR code for your authenticator app"
      width={176}
      height={176}
      className={box}
    />
  );
}
