import { COMPANY, LegalPage } from './legal.tsx';

export function PrivacyScreen() {
  return (
    <LegalPage title="Privacy Policy">
      <p>
        This policy explains what {COMPANY} collects when you use Formgate and what we do with it. We collect as little
        as we can, sell nothing, and show no ads.
      </p>
      <h2>Account data (we are the controller)</h2>
      <ul>
        <li>Your name, email address and a hash of your password, to run your account.</li>
        <li>Your organizations, their members and roles, to decide who may see what.</li>
        <li>Session records (IP address and browser), to keep you signed in and to spot abuse.</li>
        <li>Feedback and waitlist entries you send us, to answer and improve the product.</li>
      </ul>
      <h2>Form submissions (you are the controller)</h2>
      <p>
        Submissions to your forms belong to you. We store and process them only to provide the service to you: to keep
        them, filter spam, notify the addresses you verified and deliver the webhooks you set up. We keep them until you
        delete them or your organization. The submitter’s IP address is used for rate limiting and spam filtering.
      </p>
      <h2>Who else sees it</h2>
      <p>
        Only the providers that run the service for us (hosting and email delivery), under contracts that bind them to
        these purposes. We disclose data to authorities only when the law requires it.
      </p>
      <h2>Cookies</h2>
      <p>One session cookie keeps you signed in. We use no tracking or advertising cookies.</p>
      <h2>Your rights</h2>
      <p>
        You can see, correct, export and delete your account data from the dashboard, or ask us to. You can object to
        processing and complain to your data protection authority. We answer requests within 30 days.
      </p>
      <h2>Security</h2>
      <p>
        Traffic is encrypted, passwords and API keys are stored hashed, and access is checked on every request. If a
        breach affects your data, we will tell you without undue delay.
      </p>
    </LegalPage>
  );
}
