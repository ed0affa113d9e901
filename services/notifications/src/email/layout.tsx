import { Body, Container, Head, Hr, Html, Preview, Text } from '@react-email/components';
import type { CSSProperties, ReactNode } from 'react';

export const styles = {
  body: { backgroundColor: '#f6f7f9', fontFamily: 'system-ui, -apple-system, Segoe UI, Roboto, sans-serif' },
  container: { backgroundColor: '#ffffff', margin: '24px auto', padding: '24px', maxWidth: '600px' },
  heading: { fontSize: '20px', margin: '0 0 8px' },
  muted: { color: '#5f6b7a', fontSize: '13px', margin: '2px 0' },
  label: { color: '#5f6b7a', fontSize: '12px', fontWeight: 600, margin: '16px 0 2px' },
  // Values keep their line breaks; long words wrap instead of widening the mail.
  value: { fontSize: '14px', margin: 0, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' },
  link: { color: '#2754c5' },
  button: {
    backgroundColor: '#2754c5',
    borderRadius: '6px',
    color: '#ffffff',
    display: 'inline-block',
    fontSize: '14px',
    padding: '10px 16px',
    textDecoration: 'none',
  },
} satisfies Record<string, CSSProperties>;

/** The frame of every Formgate mail. `preview` is the line inbox lists show; it must not carry submitted data. */
export function Layout({ preview, footer, children }: { preview: string; footer: string; children: ReactNode }) {
  return (
    <Html lang="en">
      <Head />
      <Preview>{preview}</Preview>
      <Body style={styles.body}>
        <Container style={styles.container}>
          {children}
          <Hr />
          <Text style={styles.muted}>{footer}</Text>
        </Container>
      </Body>
    </Html>
  );
}
