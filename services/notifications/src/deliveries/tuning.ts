/**
 * Every tuning value of the delivery pipeline, in one place. Changing one changes throughput or recovery time,
 * never what is delivered.
 */
export const DELIVERY_TUNING = {
  /**
   * How long a claimed attempt may take before another instance considers it abandoned (its claimer crashed between
   * claiming and recording) and makes the next one. Longer than any send: nodemailer's connection and greeting
   * timeouts are 2 min and 30 s; a send that outlives this lease may be duplicated. `NOTIFICATIONS_ATTEMPT_LEASE_MS`.
   */
  attemptLeaseMs: 180_000,
  /** One webhook attempt's deadline: DNS, connect, TLS, the request and the response's status. */
  webhookAttemptTimeoutMs: 10_000,
  /**
   * The holder of a sent attempt writes its outcome until the store takes it (ADR 66): first again after
   * `recordRetryFirstMs`, each wait doubled up to `recordRetryMaxMs`.
   */
  recordRetryFirstMs: 100,
  recordRetryMaxMs: 5_000,
  /**
   * How long the store must have answered, after a failure this instance saw, before it takes over a claim whose
   * lease ended (ADR 66). A live holder writes again within `recordRetryMaxMs` of the store's return; this is six
   * of those waits, so an outage longer than the lease is not mistaken for a dead holder.
   */
  takeoverGraceMs: 30_000,
  /**
   * How long the two delivery consumers' fetches may wait for more submissions (`gatherMs`, ADR 62): a batch's claims
   * and outcomes cost a few store commands whatever its size, so at a steady 100/s a batch of about ten costs what a
   * batch of one did (P14). A lone submission's first attempt waits at most this long (P12: p99 ≤ 1 s).
   */
  deliveryGatherMs: 75,
  /**
   * How long a first attempt's success waits, on a Mongo server, for others to share its insert (ADR 82): at a steady
   * 100/s the sends of a batch finish over tens of milliseconds, and without the wait each insert held one or two of
   * them (P14). The attempt keeps its `firstAttemptsInFlight` place meanwhile; the mail or webhook has already gone.
   */
  successGatherMs: 50,
  /**
   * How old a submission's record must be before its planning asks whether the submission was deleted meanwhile
   * (`GoneSubmissions.listGone`: one read for all such records of a batch). Its age is the clock's time less the
   * older of the record's log timestamp and its event's `occurredAt` (a dead letter replayed gets a new log
   * timestamp, not a new `occurredAt`). A consumer that keeps up never pays the read.
   *
   * Younger records are planned unchecked. For one of them to be of a submission notifications already handled the
   * deletion of, all of this must have happened within this window: the forms service stored the submission (from
   * this same record), someone found and deleted it (an API call, an erasure by address, the retention after
   * days), forms published the deletion and notifications handled it. No person does that in two seconds, and a
   * client deleting that fast races the planning of a consumer that keeps up just the same. Smaller: a consumer a
   * little behind reads once per batch more often. Larger: a wider window planned unchecked. Clocks of the producing
   * host and of this one that differ shift the window by as much.
   */
  goneCheckAfterMs: 2_000,
  /** Forms of one consumer batch planned at once. */
  formsPlannedAtOnce: 8,
  /**
   * First attempts in flight at once per consumer group, from claim to recorded outcome: above the SMTP pool's size
   * (40), since an attempt keeps its place while its outcome waits for the store's group commit. Also the bound on
   * what a crash of the instance can duplicate.
   */
  firstAttemptsInFlight: 48,
  /**
   * Claimed first attempts a consumer group may have unsent after its handler returned before it waits to claim
   * more: about two seconds of P12's mails. After a crash these wait for the lease instead of being sent twice.
   */
  sendBacklog: 400,
  /** How often the retry worker passes when it has nothing to do right away. */
  retryPassMs: 1_000,
  /** Due deliveries attempted per retry pass, and at once within it. */
  duePerPass: 20,
  retriesAtOnce: 4,
  /** Consumer batches whose lease ended while open, finished per pass. */
  openBatchesPerPass: 10,
  /** Unpublished outcomes published per pass. */
  unpublishedPerPass: 100,
  /**
   * How long the outbox pass leaves a recorded outcome or deferral to whoever recorded it (they publish their own):
   * publishing sooner published most events twice under load, each duplicate a store update and a ledger write.
   */
  outboxGraceMs: 60_000,
  /** Deferred emails attempted per organization per pass, at most. */
  releasedPerOrg: 20,
  /** Without a new quota view, deferred emails are looked at again this often anyway (the turn of a period). */
  releaseLookMs: 30_000,
  /** How long a resend's request waits for its attempt before answering with the delivery as it stands. */
  resendWaitMs: 3_000,
  /**
   * How long a request that changed a form's settings waits for this service's forms view to hold them before it is
   * told the service is behind (`SETTLE_HEADER`), reading the view every `formsViewPollMs`.
   */
  formsViewSettleMs: 5_000,
  formsViewPollMs: 25,
  /**
   * A no-store form's submission (issue 31) is settled as soon as its last delivery is final and published, or at
   * its planning when it has none; the settle sweep is the safety net for a process that stopped or failed mid-way.
   * It looks at an open settlement `settleGraceMs` after its planning, then, while its deliveries are not done, again
   * after as long as the settlement is old, between `settleGraceMs` and `settleRecheckMaxMs` (a submission whose
   * webhook retries for a day is looked at a few dozen times, not at every pass). Also the longest a settlement
   * left half-done waits for the sweep.
   */
  settleGraceMs: 60_000,
  settleRecheckMaxMs: 3_600_000,
  /** How often the settle sweep passes, and how many open settlements it looks at per pass. */
  settleSweepMs: 30_000,
  settledPerPass: 50,
  /** Failed deliveries one replay request re-attempts at most (`more: true` says there are others). */
  replayMax: 500,
} as const;
