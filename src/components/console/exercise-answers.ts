// What each exercise says to a reader who missed: a hint after a wrong answer (never the answer), and
// after the second wrong try the answer and why, one click away. Rendered into the page by Exercises.astro, so the exercises' script does not carry the text.

export interface ExerciseAnswer {
  /** Said after a wrong answer: where to look, without giving the answer away. */
  hint: string;
  /** Shown on "Show me" after two wrong answers: a right answer… */
  answer: string;
  /** …and why it is right. */
  explain: string;
}

export const ANSWERS: Record<string, ExerciseAnswer> = {
  'module-pending-key': {
    hint: 'Every key of a queue is the prefix emq:, the queue name in braces, a colon, then the type.',
    answer: 'emq:{mira}:pending',
    explain:
      'The key shape is emq:{<queue>}:<type>, so queue mira’s pending set is emq:{mira}:pending; the module rebuilt it from the name mira and found the same bytes.',
  },
  'module-same-slot': {
    hint: 'The cluster hashes only the part between the braces; every key of queue orders has the same part there.',
    answer: 'emq:{orders}:active',
    explain:
      'Every key of queue orders hashes on orders, the part in braces, so each one — active, schedule, meta, a job row — lands on slot 105, the slot of emq:{orders}:pending.',
  },
  'module-native-verb': {
    hint: 'The native module adds commands of its own to the server, one per core transition, all named EMQ.<VERB>.',
    answer: 'EMQ.ENQUEUE',
    explain:
      'The scripted executor sends EVALSHA with a script’s sha; the native executor sends the same keys to the module’s own command, EMQ.ENQUEUE for an enqueue.',
  },
  'grammar-schedule-key': {
    hint: "The key is the prefix emq:, the queue name in braces, then the type; the schedule set's type is schedule.",
    answer: 'emq:{billing}:schedule',
    explain:
      'Every key of a queue is emq:{<queue>}:<type>; the module rebuilds that key from the queue name it finds in the row key and compares the bytes.',
  },
  'grammar-row-key': {
    hint: 'A job row is the row base emq:{<queue>}:job: with the job id right after the last colon.',
    answer: 'emq:{orders}:job:JOB0Nb1VTbfnu4',
    explain:
      'The row key is the row base emq:{orders}:job: followed by the branded id; the module rebuilds it from the queue and the id and takes it only if the bytes match.',
  },
  'grammar-byte-7': {
    hint: 'Count bytes from 0: e m q : { are bytes 0 to 4, so byte 7 is a letter of the queue name.',
    answer: 'emq:{orDers}:pending',
    explain:
      'Counting from 0, e m q : { o r d puts the d of orders at byte 7; change it and the key the module rebuilds differs from yours first there.',
  },
  'slot-low-queue': {
    hint: 'Try short names one after another (q1, q2, q3…): each is one CLUSTER KEYSLOT, and the slot jumps around, so some tries find one.',
    answer: 'q41',
    explain:
      'The slot is CRC16 of the hashtag, the queue name, mod 16384; q41 gives slot 27. Any name whose slot is 0 to 100 is right: the checker asks the cluster for the slot of emq:{name}:pending.',
  },
  'slot-same-as-vector': {
    hint: 'Only the bytes between the first { and the first } after it are hashed: put 123456789 inside braces in a longer key.',
    answer: 'foo{123456789}',
    explain: 'foo{123456789} hashes its hashtag 123456789, so it lands on 12739 like the bare key 123456789.',
  },
  'slot-moved-or-emqwire': {
    hint: 'Ask what a node does before it runs any command: does it own the slot of the keys the call declares?',
    answer: 'MOVED',
    explain:
      'The server routes by the declared keys before any module is called: a node that does not serve the slot answers MOVED and runs nothing. The module runs only where the slot is served (on its owner, or while the slot migrates on the target after ASKING), and there it answers EMQWIRE.',
  },
  'slot-claim-mid-migration': {
    hint: 'ASK is for one key that has already moved; MOVED only once the slot has a new owner. Which key of the claim never exists on any node?',
    answer: 'TRYAGAIN, on the source and on the target after ASKING',
    explain:
      'The claim declares the row base emq:{orders}:job:, which never exists as a key. While a slot migrates, a call naming several keys of it, some missing, is refused with TRYAGAIN — by the source (MIGRATING) and by the target after ASKING (IMPORTING) — so the claim waits out the whole migration, retrying, until CLUSTER SETSLOT 105 NODE gives the slot to one node. (When all its keys are missing, as for an empty queue, the source first answers ASK; the target then says TRYAGAIN.)',
  },
  'reserve-identity-key': {
    hint: "It is the reserve's one key: the reserve base {emq}: and then version.",
    answer: '{emq}:version',
    explain:
      "The wire identity lives at {emq}:version, outside every queue's keys (its first byte is { where theirs is e), so no queue name can collide with it.",
  },
  'reserve-slot': {
    hint: 'The hashtag of {emq}:version is emq: the slot is CRC16 of those three bytes mod 16384.',
    answer: '9051',
    explain: 'The hashtag is emq, and CRC16 of emq mod 16384 is 9051.',
  },
  'reserve-shared-slot': {
    hint: 'Which queue name gives its keys the same hashtag as {emq}:version?',
    answer: 'emq',
    explain:
      "Queue emq's keys are emq:{emq}:<type>: the same hashtag emq as {emq}:version, so slot 9051, yet a different first byte, so never the reserve's key.",
  },
};
