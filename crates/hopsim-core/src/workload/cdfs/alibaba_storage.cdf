# alibaba_storage: Alibaba storage (AliStorage2019)
# measured in: Alibaba production distributed-storage flow sizes, 2019, as released with the HPCC code (the HPCC paper itself evaluates WebSearch and FbHdp only); Y. Li, R. Miao, H. H. Liu, Y. Zhuang, F. Feng, L. Ta
# tabulation: https://github.com/alibaba-edu/High-Precision-Congestion-Control (branch master, snapshot commit 9f4be2a9ead8a90e8bf732c66bd758c00e58e5be) traffic_gen/AliStorage2019.txt (last changed in commit fe18e47f4cded502eb5f9c99e4a4941645ab889b)
# interpolation: linear
0 0.0
4000 0.2293
8000 0.6921
16000 0.8061
32000 0.9047
64000 0.9353
128000 0.9677
256000 0.9753
2000000 1.0
