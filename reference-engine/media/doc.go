// Package media holds the pixel and video helpers of the reference web
// engine: PNG size and masking for screenshots, the ffmpeg lookup, and a
// screencast recorder that encodes a page's frames to a VP8 WebM file with
// an ffmpeg child process.
package media
