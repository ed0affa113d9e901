/** Placeholder until the dashboard lands: it says what works today. */
export function App() {
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', maxWidth: 640, margin: '10vh auto', padding: '0 1rem' }}>
      <h1>Formgate</h1>
      <p>The best form submission API for startups.</p>
      <p>
        The dashboard is not built yet. Create a form with <code>pnpm formgate forms create --name Contact</code>, then
        point an HTML form at <code>/f/&lt;key&gt;</code>.
      </p>
    </main>
  );
}
