/**
 * Runs in every document of a context under a user domain policy, before the page's own scripts.
 * WebRTC sends STUN over UDP from the browser itself, around the policy proxy (which only sees
 * TCP), so under a policy it is not offered at all. Workers have no RTCPeerConnection.
 */
export function disableWebRtc(): void {
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection']) delete (globalThis as Record<string, unknown>)[name];
}
