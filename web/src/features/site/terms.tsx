import { COMPANY, FOUNDED, LegalPage } from './legal.tsx';

export function TermsScreen() {
  return (
    <LegalPage title="Terms of Service">
      <p>
        These terms are an agreement between you and {COMPANY}, a private limited company founded in {FOUNDED} (“we”),
        for the use of Formgate (“the service”). By creating an account you accept them on behalf of yourself and the
        organization you use it for.
      </p>
      <h2>The service</h2>
      <p>
        Formgate receives submissions of forms you connect to it, stores them, filters spam and notifies you. We may
        change or improve the service; we will tell you before removing a feature you rely on.
      </p>
      <h2>Your account</h2>
      <ul>
        <li>Keep your password and API keys secret; you are responsible for what is done with them.</li>
        <li>You must be at least 16 years old and give us a working email address.</li>
        <li>Organization owners decide who is a member and what they may do.</li>
      </ul>
      <h2>Acceptable use</h2>
      <p>
        Do not use Formgate to collect data unlawfully, to send spam, for phishing or malware, or to collect payment
        card numbers, passwords or health data through forms. We may suspend forms or accounts that do, or that put the
        service or others at risk.
      </p>
      <h2>Your data</h2>
      <p>
        You own the submissions your forms receive. You are the controller of that data and we process it on your
        behalf, as described in our Privacy Policy. You can export or delete it at any time; we delete it when you
        delete your organization.
      </p>
      <h2>Plans and payment</h2>
      <p>
        Each plan has monthly limits. Over a limit, new submissions are held until the next period or an upgrade;
        nothing is deleted. Paid plans are billed monthly in advance and can be cancelled at any time, effective at the
        end of the period.
      </p>
      <h2>Availability and liability</h2>
      <p>
        We work hard to keep the service available and your data safe, but provide it “as is”. To the extent the law
        allows, our total liability in any twelve months is limited to the amount you paid us in that time, and we are
        not liable for indirect or consequential loss. Nothing in these terms limits liability that cannot be limited by
        law.
      </p>
      <h2>Ending</h2>
      <p>
        You can delete your account at any time. We may end these terms with 30 days’ notice, or at once for a serious
        breach. These terms are governed by the law of the place where {COMPANY} is registered.
      </p>
      <h2>Contact</h2>
      <p>
        Questions about these terms: use “Share Feedback” in the dashboard, or write to us at the address on our
        invoices.
      </p>
    </LegalPage>
  );
}
