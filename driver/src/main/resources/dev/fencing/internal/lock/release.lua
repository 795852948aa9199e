-- Deletes the lock only while it still belongs to the caller (compare-and-delete): a holder
-- whose lock expired must not delete its successor's lock. Announces the release so that
-- waiting acquirers wake up at once instead of polling.
--
-- KEYS[1]  lock key
-- ARGV[1]  owner (a UUID)
-- ARGV[2]  release channel (a channel is not a key: PUBLISH reaches every node of a cluster)
-- ARGV[3]  the released fence (the message; waiters only need the wake-up)
--
-- Returns 1 when the lock was released, 0 when the caller no longer owned it.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[2], ARGV[3])
  return 1
end
return 0
