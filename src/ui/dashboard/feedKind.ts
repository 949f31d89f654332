/**
 * What a line of the dashboard's feed is about (it picks the line's colour). Its own file because both the
 * dashboard's state and the description of actor events name it, and neither should import the other for it.
 */
export type FeedKind = 'submit' | 'claim' | 'commit' | 'verdict' | 'challenge' | 'dispute' | 'slash' | 'payout' | 'jackpot' | 'timeout' | 'market' | 'devnet' | 'error'
