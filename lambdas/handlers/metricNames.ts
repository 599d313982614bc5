/** Metric names the stack's alarms read: dependency-free, imported by infra and the handlers. */
export const METRICS_NAMESPACE = 'TestEquipmentCloud';
/** 1 per complete poller run, with the dimension `poller`, and per complete digest run (service email): the heartbeats. */
export const RUN_COMPLETED_METRIC = 'RunCompleted';
/** E-mails sent (digests, failed-test e-mails, compliance reports), with the dimension `service` = email. */
export const EMAILS_SENT_METRIC = 'EmailsSent';
