package controlmode

// Subscription receives a connection's notifications on a channel. A
// subscriber that falls behind loses notifications instead of slowing the
// reader: the next one it receives is a [Lost] saying how many it missed.
type Subscription struct {
	c  *Conn
	ch chan Notification
	// lost counts notifications dropped since the last successful send.
	// Only the reader goroutine touches it, under c.subsMu held for reading.
	lost uint64
}

// Subscribe returns a subscription whose channel holds up to buffer
// notifications (at least 1). The channel is closed when the connection
// ends or the subscription is closed.
func (c *Conn) Subscribe(buffer int) *Subscription {
	s := &Subscription{c: c, ch: make(chan Notification, max(buffer, 1))}
	c.subsMu.Lock()
	defer c.subsMu.Unlock()
	select {
	case <-c.done:
		close(s.ch)
	default:
		c.subs[s] = struct{}{}
	}
	return s
}

// C returns the channel notifications arrive on.
func (s *Subscription) C() <-chan Notification { return s.ch }

// Close stops the subscription and closes its channel. It is idempotent.
func (s *Subscription) Close() {
	s.c.subsMu.Lock()
	defer s.c.subsMu.Unlock()
	if _, ok := s.c.subs[s]; ok {
		delete(s.c.subs, s)
		close(s.ch)
	}
}

// send never blocks: it is called by the reader goroutine.
func (s *Subscription) send(n Notification) {
	if s.lost > 0 {
		select {
		case s.ch <- Lost{N: s.lost}:
			s.lost = 0
		default:
			s.lost++
			return
		}
	}
	select {
	case s.ch <- n:
	default:
		s.lost++
	}
}
