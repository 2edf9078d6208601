package apf

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
)

// maxHashBits is how many bits of a flow's hash the dealer may use.
const maxHashBits = 60

// A Dealer deals hands of handSize distinct queues out of deckSize.
type Dealer struct {
	deckSize, handSize int
}

// NewDealer returns a dealer of handSize cards out of deckSize. It refuses
// what upstream refuses: sizes that are not positive, a hand larger than
// the deck, a deck larger than 2^26, and hands that need more than 60 bits
// of the hash (ceil(log2(deckSize) × handSize)).
func NewDealer(deckSize, handSize int) (*Dealer, error) {
	switch {
	case deckSize <= 0 || handSize <= 0:
		return nil, fmt.Errorf("deckSize %d or handSize %d is not positive", deckSize, handSize)
	case handSize > deckSize:
		return nil, fmt.Errorf("handSize %d is greater than deckSize %d", handSize, deckSize)
	case deckSize > 1<<26:
		return nil, fmt.Errorf("deckSize %d is greater than 2^26", deckSize)
	}
	if bits := int(math.Ceil(math.Log2(float64(deckSize)) * float64(handSize))); bits > maxHashBits {
		return nil, fmt.Errorf("deckSize %d and handSize %d need %d bits of hash, more than %d", deckSize, handSize, bits, maxHashBits)
	}
	return &Dealer{deckSize: deckSize, handSize: handSize}, nil
}

// Deal returns the hand of the flow with hash h. The hash is read as a
// mixed-radix number: digit i, in base deckSize−i, picks the i-th card
// among the cards not yet dealt, so every hand of distinct cards comes from
// the same number of hashes.
func (d *Dealer) Deal(h uint64) []int {
	hand := make([]int, d.handSize)
	for i := range hand {
		base := uint64(d.deckSize - i)
		hand[i] = int(h % base)
		h /= base
	}
	// Turn "the r-th card still in the deck" into a card number: walking
	// back over the earlier picks, step over each card already taken.
	for i := len(hand) - 1; i > 0; i-- {
		for j := i; j > 0; j-- {
			if hand[i] >= hand[j-1] {
				hand[i]++
			}
		}
	}
	return hand
}

// FlowHash is the hash that picks a flow's hand: the first 8 bytes, little
// endian, of sha256(schema + "\x00" + distinguisher).
func FlowHash(schema, distinguisher string) uint64 {
	h := sha256.New()
	h.Write([]byte(schema))
	h.Write([]byte{0})
	h.Write([]byte(distinguisher))
	var sum [sha256.Size]byte
	return binary.LittleEndian.Uint64(h.Sum(sum[:0])[:8])
}

// ChooseQueue returns the queue of hand that a new request joins: the one
// with the least waiting work, visiting the hand from position
// placed mod len(hand), where placed counts the requests the level has
// placed so far, every one of them, including those then refused as
// queue-full (shuffleShardLocked moves the offset before
// rejectOrEnqueueToBoundLocked decides); between equals the first visited
// wins. Starting at a moving offset keeps flows whose hands overlap from
// always piling onto the same queue.
func ChooseQueue(hand []int, placed uint64, waiting func(queue int) float64) int {
	offset := int(placed % uint64(len(hand)))
	best, bestWork := -1, math.Inf(1)
	for i := range hand {
		q := hand[(offset+i)%len(hand)]
		if w := waiting(q); w < bestWork {
			best, bestWork = q, w
		}
	}
	return best
}
