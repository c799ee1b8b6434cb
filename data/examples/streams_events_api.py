# Streams, events and priorities.
#
# The matmul runs on the high-priority stream s1, after s1 waits for the
# default stream that made x (without that wait the two streams race on x:
# the timeline marks it "Unordered"); s2 waits for the event s1 recorded
# after it, so the sum starts only once the product is ready.
# Two timing events bracket the work on the default stream. Look for the
# event record on s1 and the wait arrow into s2.
import torch
s1 = torch.cuda.Stream(priority=-1)
s2 = torch.cuda.Stream()
start = torch.cuda.Event(enable_timing=True)
end = torch.cuda.Event(enable_timing=True)
x = torch.randn(2048, 2048, device='cuda')
start.record()
s1.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s1):
    y = x @ x
    done = s1.record_event()
s2.wait_event(done)
with torch.cuda.stream(s2):
    z = y.sum()
end.record()
end.synchronize()
print(start.query(), end.query(), s1.query())
print(start.elapsed_time(end) > 0)
torch.cuda.default_stream().wait_stream(s2)
torch.cuda.synchronize()
print(torch.cuda.current_stream() == torch.cuda.default_stream())
print(s1.priority, s2.priority)
